"""CrewAI's loaders of JSON-first projects: ``load_crew``, ``load_crew_and_kickoff``,
``load_agent``, ``load_agent_from_definition`` and ``strip_jsonc_comments`` (``crewai.project``).

They are the function forms of crewgraph's loader (:func:`~crewgraph.project.load_json_crew`),
with CrewAI's signatures and return shapes: ``load_crew`` returns ``(crew, default inputs)``.
The errors are crewgraph's: a ``ConfigurationError`` naming the file, the line and the field.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["load_agent", "load_agent_from_definition", "load_crew", "load_crew_and_kickoff", "strip_jsonc_comments"]


def strip_jsonc_comments(text: str) -> str:
    """``text`` (JSONC) as plain JSON: comments and trailing commas blanked, strings untouched."""
    from crewgraph.project._jsonc import strip_jsonc

    return strip_jsonc(text)


def load_crew(source: Path | str, agents_dir: Path | None = None) -> tuple[Any, dict[str, Any]]:
    """The crew of the definition ``source`` (``crew.jsonc``/``crew.json``, or its folder) and
    its default ``inputs``; agent files are read from ``agents_dir`` (default ``agents/`` beside it)."""
    from crewgraph.project.json_project import load_json_crew

    project = load_json_crew(source, agents_dir=agents_dir)
    return project.crew, dict(project.inputs)


def load_crew_and_kickoff(crew_path: Path | str, input_overrides: dict[str, Any] | None = None) -> Any:
    """Load the crew at ``crew_path`` and kick it off with its default inputs, ``input_overrides`` on top."""
    crew, inputs = load_crew(crew_path)
    return crew.kickoff(inputs={**inputs, **(input_overrides or {})})


def load_agent(source: str | Path) -> Any:
    """The Agent of one agent definition file (``agents/<name>.jsonc``); the project root is the
    folder above ``agents/`` (else the file's folder), where ``{"python": ...}`` references resolve."""
    from crewgraph.errors import ConfigurationError
    from crewgraph.project.json_project import build_agent_file

    path = Path(source).resolve()
    if not path.is_file():
        raise ConfigurationError(f"no such agent definition: {source}")
    root = path.parent.parent if path.parent.name == "agents" else path.parent
    return build_agent_file(root, path.stem, path)


def load_agent_from_definition(definition: dict[str, Any] | Any, *, source: str | Path = "<inline agent>",
                               project_root: str | Path | None = None) -> tuple[Any, type[BaseModel] | None]:
    """An Agent and its kickoff ``response_format`` model from an inline agent definition
    (CrewAI's ``AgentDefinition``: the agent's fields, ``input``, ``response_format``).
    ``{"python": ...}`` references resolve from ``project_root`` (default: the working directory)."""
    from crewgraph.project.crew_definition import AgentDefinition, build_agent, resolve_python_ref

    model = definition if isinstance(definition, AgentDefinition) else AgentDefinition.model_validate(definition)
    root = str(Path(project_root).resolve()) if project_root is not None else str(Path.cwd())
    added = root not in sys.path
    if added:
        sys.path.insert(0, root)
    try:
        agent = build_agent(model, str(source))
        response_format = None
        if model.response_format is not None:
            found = resolve_python_ref(model.response_format.python, f"{source}: response_format")
            if not (isinstance(found, type) and issubclass(found, BaseModel)):
                raise ValueError(f"{source}: response_format: {model.response_format.python!r} is not a pydantic model")
            response_format = found
    finally:
        if added:
            sys.path.remove(root)
    return agent, response_format
