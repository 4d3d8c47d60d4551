"""Crew projects: ``@CrewBase`` classes with YAML agents/tasks and CrewAI's decorators,
and CrewAI's JSON-first projects (``crew.jsonc`` + ``agents/*.jsonc``, :func:`load_json_crew`).

``from crewgraph.project import CrewBase, agent, crew, task`` is the import a
CrewAI project uses (with ``crewai`` read as ``crewgraph``).
"""

from crewgraph.project._resolve import ProjectConfigWarning
from crewgraph.project.annotations import (
    after_kickoff,
    agent,
    before_kickoff,
    cache_handler,
    callback,
    crew,
    llm,
    memoize,
    output_json,
    output_pydantic,
    task,
    tool,
)
from crewgraph.project.crew_base import CrewBase, find_crew_method, is_crew_class
from crewgraph.project.json_project import JsonCrewProject, load_json_crew
from crewgraph.project.loaders import (
    load_agent,
    load_agent_from_definition,
    load_crew,
    load_crew_and_kickoff,
    strip_jsonc_comments,
)

__all__ = [
    "AgentDefinition",
    "CrewAgentDefinition",
    "CrewBase",
    "CrewDefinition",
    "CrewTaskDefinition",
    "JsonCrewProject",
    "ProjectConfigWarning",
    "PythonReferenceDefinition",
    "after_kickoff",
    "agent",
    "before_kickoff",
    "cache_handler",
    "callback",
    "crew",
    "find_crew_method",
    "is_crew_class",
    "llm",
    "load_agent",
    "load_agent_from_definition",
    "load_crew",
    "load_crew_and_kickoff",
    "load_json_crew",
    "memoize",
    "output_json",
    "output_pydantic",
    "strip_jsonc_comments",
    "task",
    "tool",
]

_DEFINITIONS = ("AgentDefinition", "CrewAgentDefinition", "CrewDefinition", "CrewTaskDefinition",
                "PythonReferenceDefinition")


def __getattr__(name: str) -> object:  # the inline definitions of crewai.flow/v1 documents load on first use
    if name in _DEFINITIONS:
        from crewgraph.project import crew_definition

        return getattr(crew_definition, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
