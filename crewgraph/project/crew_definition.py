"""Inline crew and agent definitions: the ``with:`` of a declarative flow's crew/agent action.

CrewAI's ``crewai.flow/v1`` documents describe a crew or an agent in place
(``do: {call: crew, with: {agents: {...}, tasks: [...]}}``); these are the
models of that data, with CrewAI's names (``CrewDefinition``,
``CrewAgentDefinition``, ``CrewTaskDefinition``, ``AgentDefinition``,
``PythonReferenceDefinition``). :func:`build_crew` and :func:`build_agent` turn
them into a real :class:`~crewgraph.Crew` / :class:`~crewgraph.Agent`; a field
crewgraph's Agent does not implement reaches the Agent, which refuses it
saying so, and unknown keys are refused here (CrewAI drops them silently).
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "AgentDefinition",
    "CrewAgentDefinition",
    "CrewDefinition",
    "CrewTaskDefinition",
    "PythonReferenceDefinition",
    "build_agent",
    "build_crew",
    "resolve_python_ref",
]


class PythonReferenceDefinition(BaseModel):
    """``{"python": "module:attr"}`` (or ``module.attr``): an importable Python object."""

    model_config = ConfigDict(extra="forbid")

    python: str


class CrewAgentDefinition(BaseModel):
    """One agent of an inline crew (CrewAI's field names; ``settings`` holds the rest)."""

    model_config = ConfigDict(extra="forbid")

    role: str | None = None
    goal: str | None = None
    backstory: str | None = None
    llm: str | dict[str, Any] | None = None
    tools: list[str | dict[str, Any]] | None = None
    max_iter: int | None = None
    max_rpm: int | None = None
    max_execution_time: int | None = None
    allow_delegation: bool | None = None
    apps: list[str] | None = None
    mcps: list[str | dict[str, Any]] | None = None
    from_repository: str | None = None
    planning_config: Any = None
    type: str | PythonReferenceDefinition | None = None
    settings: dict[str, Any] = Field(default_factory=dict)


class AgentDefinition(CrewAgentDefinition):
    """A standalone agent (an ``agent`` action): its definition plus the ``input`` it is given."""

    input: str | list[dict[str, Any]]
    response_format: PythonReferenceDefinition | None = None


class CrewTaskDefinition(BaseModel):
    """One task of an inline crew; ``agent`` and ``context`` name agents and earlier tasks."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    description: str
    expected_output: str
    agent: str | None = None
    context: list[str] | None = None
    type: str | PythonReferenceDefinition | None = None


class CrewDefinition(BaseModel):
    """An inline crew: agents by name, tasks in order, default ``inputs``."""

    model_config = ConfigDict(extra="forbid")

    agents: dict[str, CrewAgentDefinition]
    tasks: list[CrewTaskDefinition]
    inputs: dict[str, Any] = Field(default_factory=dict)
    manager_agent: str | PythonReferenceDefinition | None = None

    @model_validator(mode="after")
    def _names(self) -> CrewDefinition:
        seen: set[str] = set()
        for index, task in enumerate(self.tasks):
            if task.agent is not None and task.agent not in self.agents:
                raise ValueError(f"tasks[{index}].agent: no agent {task.agent!r} (agents: {', '.join(self.agents)})")
            for ref in task.context or ():
                if ref not in seen:
                    raise ValueError(f"tasks[{index}].context: {ref!r} is not the name of an earlier task")
            if task.name:
                seen.add(task.name)
        return self


_UNSUPPORTED = ("apps", "mcps", "from_repository", "planning_config")


def resolve_python_ref(ref: str, what: str) -> Any:
    """Import ``module:attr`` (or ``module.attr``); a clear error naming ``what`` otherwise."""
    module, sep, attr = ref.partition(":")
    if not sep:
        module, _, attr = ref.rpartition(".")
    if not module or not attr:
        raise ValueError(f"{what}: {ref!r} is not an import reference (module:attr)")
    try:
        found: Any = importlib.import_module(module)
        for part in attr.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"{what}: cannot import {ref!r}: {exc}") from None
    return found


def _agent_fields(definition: CrewAgentDefinition, where: str) -> tuple[type[Any], dict[str, Any]]:
    from crewgraph import Agent

    for name in _UNSUPPORTED:
        if getattr(definition, name) is not None:
            raise ValueError(f"{where}.{name}: not supported by crewgraph's inline agents")
    data = definition.model_dump(exclude_none=True, exclude={"settings", "type", "tools", "input", "response_format"})
    for key, value in definition.settings.items():
        if key in data:
            raise ValueError(f"{where}.settings.{key}: also set at the top level; keep one")
        data[key] = value
    if definition.tools:
        tools = []
        for index, tool in enumerate(definition.tools):
            ref = tool.get("python") if isinstance(tool, dict) else tool
            if not isinstance(ref, str):
                raise ValueError(f"{where}.tools[{index}]: a tool is an import reference (module:attr), got {tool!r}")
            found = resolve_python_ref(ref, f"{where}.tools[{index}]")
            tools.append(found() if isinstance(found, type) else found)
        data["tools"] = tools
    cls: type[Any] = Agent
    kind = definition.type
    if isinstance(kind, PythonReferenceDefinition):
        cls = resolve_python_ref(kind.python, f"{where}.type")
        if not (isinstance(cls, type) and issubclass(cls, Agent)):
            raise ValueError(f"{where}.type: {kind.python!r} is not a subclass of Agent")
    elif kind is not None and kind not in ("agent", "Agent", "crewai.Agent", "crewgraph.Agent"):
        raise ValueError(f"{where}.type: unknown agent type {kind!r}")
    return cls, data


def build_agent(definition: CrewAgentDefinition, where: str = "agent") -> Any:
    """The Agent a definition describes (``ValueError`` naming ``where`` when it is wrong)."""
    from pydantic import ValidationError

    cls, data = _agent_fields(definition, where)
    try:
        return cls(**data)
    except (ValidationError, TypeError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def build_crew(definition: CrewDefinition, where: str = "crew") -> Any:
    """The Crew a definition describes: its agents, its tasks in order (context by name)."""
    from crewgraph import Crew, Task

    if definition.manager_agent is not None:
        raise ValueError(f"{where}.manager_agent: not supported in inline crews (use a crew from a Python module)")
    agents = {name: build_agent(agent, f"{where}.agents.{name}") for name, agent in definition.agents.items()}
    tasks: list[Any] = []
    named: dict[str, Any] = {}
    for index, spec in enumerate(definition.tasks):
        if spec.type not in (None, "task", "Task"):
            raise ValueError(f"{where}.tasks[{index}].type: only plain tasks are supported inline, got {spec.type!r}")
        fields: dict[str, Any] = {"description": spec.description, "expected_output": spec.expected_output}
        if spec.name:
            fields["name"] = spec.name
        if spec.agent is not None:
            fields["agent"] = agents[spec.agent]
        if spec.context is not None:
            fields["context"] = [named[ref] for ref in spec.context]
        task = Task(**fields)
        tasks.append(task)
        if spec.name:
            named[spec.name] = task
    return Crew(agents=list(agents.values()), tasks=tasks)
