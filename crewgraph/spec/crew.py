"""CrewSpec: what a crew *is* (agents, tasks, process and settings), validated on definition.

The ``Crew`` users build (``crewgraph.crew``) is this definition plus the
methods that run it. Keeping the definition here, on the same layer as
Agent and Task, lets the runner below the facade build and run crews of its
own (``Task.execute_sync`` runs a one-task crew) without importing the
facade. Definition rules (``spec/_crew_rules.py``) raise a pydantic
``ValidationError`` naming the field, as CrewAI does.
"""

# No `from __future__ import annotations` here: pydantic evaluates string annotations with
# compile()+eval() per field at class creation, about half of this module's import cost
# (issue 18's import budget). Names only known to type checkers are quoted instead.

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Self, cast

from pydantic import (
    UUID4,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from crewgraph.security.fingerprint import Fingerprint
from crewgraph.security.security_config import SecurityConfig, SecurityConfigField
from crewgraph.spec._unsupported import reject_unsupported
from crewgraph.spec._validators import (
    agent_from_dump,
    check_knowledge,
    check_knowledge_sources,
    check_llm,
    check_policy,
    one_knowledge,
)
from crewgraph.spec.agent import Agent
from crewgraph.spec.base_agent import BaseAgent
from crewgraph.spec.process import Process
from crewgraph.spec.task import Task
from crewgraph.usage_metrics import UsageMetrics

__all__ = ["CrewSpec", "check_executor"]



def check_executor(value: Any) -> Any:
    """``value`` if it is None or a step executor (it has ``prepare``), else a ValueError."""
    if value is not None and not callable(getattr(value, "prepare", None)):
        raise ValueError(
            "executor must be a step executor such as crewgraph.distributed.RayExecutor(...), "
            f"got {type(value).__name__}"
        )
    return value

class CrewSpec(BaseModel):
    """A team of agents working through tasks. Field names follow CrewAI."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", defer_build=True)

    id: UUID4 = Field(default_factory=uuid.uuid4, frozen=True)
    name: str | None = "crew"
    agents: list[BaseAgent] = Field(default_factory=list)
    tasks: list[Task] = Field(default_factory=list)
    process: Process = Process.sequential
    verbose: bool = False
    llm: Any = Field(default=None, description="Default model for agents that set none")
    manager_llm: Any = None
    manager_agent: Agent | None = None
    planning: bool = False
    planning_llm: Any = None
    memory: Any = Field(default=False, description="bool, Memory, MemoryScope or MemorySlice")
    embedder: Any = None
    knowledge_sources: list[Any] | None = Field(
        default=None, description="Knowledge every agent of the crew draws on"
    )
    knowledge: Any = Field(default=None, description="A built Knowledge object every agent draws on")
    cache: bool = Field(default=False, description="Cache tools' results (the seed's default: off)")
    max_rpm: int | None = Field(default=None, ge=1)
    max_concurrency: int = Field(default=128, ge=1)
    stream: bool = Field(
        default=False, description="kickoff returns a CrewStreamingOutput of chunks as the agents work"
    )
    step_callback: Callable[..., Any] | None = None
    task_callback: Callable[..., Any] | None = None
    before_kickoff_callbacks: list[Callable[..., Any]] = Field(default_factory=list)
    after_kickoff_callbacks: list[Callable[..., Any]] = Field(default_factory=list)
    tool_failure_policy: Any = None
    security_config: SecurityConfigField = Field(
        default_factory=SecurityConfig, description="Security settings: the fingerprint that identifies it"
    )
    checkpoint: Any = None
    cassette: Any = Field(
        default=None, description="Record/replay every LLM call of a run: a path or CassetteConfig"
    )
    skills: list[Any] | None = Field(
        default=None, description="Agent Skills every agent of the crew gets (an agent's own skill of the same name wins)"
    )
    _valid_skills = field_validator("skills")(classmethod(lambda cls, v: _check_skills(v)))
    input_provider: Any = Field(
        default=None,
        description="Reviews human_input answers: a callable fn(prompt) -> str, an object with ask(prompt), "
        "'console' (default: stdin) or 'persisted' (with checkpointing, the run pauses until crew.resume)",
    )
    output_log_file: bool | str | None = None
    tracing: bool | None = Field(
        default=None,
        description="OpenTelemetry spans of every run (None: $CREWGRAPH_TRACING); needs crewgraph[otel]",
    )
    executor: Any = Field(
        default=None,
        description="Where node steps run: None (this process) or crewgraph.distributed.RayExecutor(...)",
    )

    usage_metrics: UsageMetrics | None = None
    entity_type: Literal["crew"] = Field(default="crew", description="What kind of entity this is (CrewAI's tag)")
    trained_agents_file: str | Path | None = Field(
        default=None, description="The trained-agents file kickoffs read (default: trained_agents_data.pkl)"
    )
    _memory: Any = PrivateAttr(default=None)
    _last_run: Any = PrivateAttr(default=None)
    _last_inputs: dict[str, Any] | None = PrivateAttr(default=None)
    _train: bool = PrivateAttr(default=False)
    _train_iteration: int | None = PrivateAttr(default=None)
    _factory_ref: str | None = PrivateAttr(default=None)
    _execution_hooks: dict[str, list[Any]] = PrivateAttr(default_factory=dict)
    """before/after LLM and tool call hooks of this crew alone (a @CrewBase class's hook methods)."""
    """``module:attr`` that rebuilds this crew, stored in checkpoints for ``from_checkpoint``."""

    @model_validator(mode="before")
    @classmethod
    def _unsupported_fields(cls, data: Any) -> Any:
        """CrewAI fields crewgraph does not implement (``chat_llm``...) fail naming themselves."""
        return reject_unsupported(data, "Crew", cls.model_fields)

    @field_validator("executor")
    @classmethod
    def _check_executor(cls, value: Any) -> Any:
        return check_executor(value)

    _agents_from_dump = field_validator("agents", mode="before")(
        classmethod(lambda cls, v: [agent_from_dump(a) for a in v] if isinstance(v, list) else v)
    )
    _validate_llms = field_validator("llm", "manager_llm", "planning_llm", mode="before")(
        classmethod(lambda cls, v: check_llm(v))
    )

    @field_validator("input_provider", mode="before")
    @classmethod
    def _check_input_provider(cls, value: Any) -> Any:
        if value is None or callable(value) or callable(getattr(value, "ask", None)):
            return value
        if value in ("console", "persisted"):
            return value
        raise ValueError(
            "input_provider must be a callable fn(prompt) -> str, an object with ask(prompt), "
            f"'console' or 'persisted'; got {value!r}"
        )

    _validate_policy = field_validator("tool_failure_policy", mode="before")(
        classmethod(lambda cls, v: check_policy(v))
    )
    _validate_knowledge_object = field_validator("knowledge", mode="before")(
        classmethod(lambda cls, v: check_knowledge(v))
    )
    _validate_knowledge = field_validator("knowledge_sources", mode="before")(
        classmethod(lambda cls, v: None if v is None else check_knowledge_sources(v))
    )

    @model_validator(mode="after")
    def _one_knowledge(self) -> "CrewSpec":
        one_knowledge(self, "Crew")
        return self

    @model_validator(mode="after")
    def _collect_agents(self) -> "CrewSpec":
        """Agents referenced by tasks join the crew, as in CrewAI; then the definition rules."""
        known = {a.id for a in self.agents}
        manager = self.manager_agent.id if self.manager_agent is not None else None
        for task in self.tasks:
            if task.agent is not None and task.agent.id not in known and task.agent.id != manager:
                self.agents.append(task.agent)
                known.add(task.agent.id)
        from crewgraph.spec._crew_rules import crew_problems, raise_problems

        raise_problems(type(self).__name__, crew_problems(self, at_definition=True), self)
        return self

    def copy(self) -> Self:  # type: ignore[override]  # CrewAI's Crew.copy(), not pydantic's deprecated one
        """A fresh copy for another run (CrewAI's): new ids, copied agents, tasks and manager agent."""
        from crewgraph.spec._copy import copy_crew

        return cast("Self", copy_crew(self))

    @property
    def key(self) -> str:
        """CrewAI's crew key: the md5 of its agents' and tasks' keys (stable across runs)."""
        from hashlib import md5

        source = [a.key for a in self.agents] + [t.key for t in self.tasks]
        return md5("|".join(source).encode(), usedforsecurity=False).hexdigest()

    def fetch_inputs(self) -> set[str]:
        """The ``{placeholders}`` the kickoff inputs must fill: in the tasks' descriptions and
        expected outputs and the agents' roles, goals and backstories."""
        from crewgraph._internal.interpolate import placeholder_names

        found: set[str] = set()
        for task in self.tasks:
            found.update(placeholder_names(task.description), placeholder_names(task.expected_output))
        for agent in self.agents:
            for text in (agent.role, agent.goal, agent.backstory):
                found.update(placeholder_names(text))
        return found

    def calculate_usage_metrics(self) -> UsageMetrics:
        """The tokens and requests of every model this crew's agents use (the manager's too),
        counted over every call each model answered so far; a model shared by several agents
        counts once."""
        from crewgraph.llm.base import BaseLLM

        agents = [*self.agents, *([self.manager_agent] if self.manager_agent is not None else [])]
        llms = [a.llm for a in agents] + [self.llm, self.manager_llm, self.planning_llm]
        total, seen = UsageMetrics(), set()
        for llm in llms:
            if isinstance(llm, BaseLLM) and id(llm) not in seen:
                seen.add(id(llm))
                total = total + llm.get_token_usage_summary()
        return total

    # ------------------------------------------------------------------ memory
    @property
    def fingerprint(self) -> Fingerprint:
        """The crew's identity (``security_config.fingerprint``); events name it as their source."""
        return self.security_config.fingerprint

    @property
    def memory_enabled(self) -> bool:
        return self.memory is not False and self.memory is not None

    def get_memory(self) -> Any:
        """The crew's Memory (built on first use when ``memory=True``), or None."""
        if not self.memory_enabled:
            return None
        if self.memory is True:
            if self._memory is None:
                from crewgraph.memory import Memory

                self._memory = Memory(embedder=self.embedder) if self.embedder is not None else Memory()
            return self._memory
        return self.memory

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, process={self.process.value}, "
            f"agents={len(self.agents)}, tasks={len(self.tasks)})"
        )


def _check_skills(value: Any) -> Any:
    from crewgraph.skills.check import check_skill_entries

    return check_skill_entries(value)
