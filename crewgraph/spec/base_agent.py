"""BaseAgent: the abstract base of every agent a crew can run, CrewAI's contract for
third-party agents.

``Agent`` derives from it; so can any other agent implementation (a wrapper
around another framework's agent, a rule-based worker...). A subclass fills
in the three abstract methods of CrewAI's contract:

- ``execute_task(task, context=None, tools=None) -> str``: do the task
  (``context`` is the text of the tasks it depends on) and return the answer.
  It may be a coroutine function; a plain one runs in a worker thread.
- ``create_agent_executor(tools=None)``: prepare whatever runs the work.
- ``get_delegation_tools(agents)``: the tools this agent delegates with.

In a crew, a task whose agent is not an ``Agent`` compiles to an
``external_agent`` node that calls ``execute_task``; its output then goes
through the same convert / guardrail / memory nodes as any task's.
"""

# No `from __future__ import annotations` here: pydantic evaluates string annotations with
# compile()+eval() per field at class creation, about half of this module's import cost
# (issue 18's import budget). Names only known to type checkers are quoted instead.

import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Self

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
from crewgraph.spec._base_agent_api import BaseAgentAPI
from crewgraph.spec._dump import JSON_NAMED, JSON_TOOLS
from crewgraph.spec._unsupported import reject_unsupported
from crewgraph.spec._validators import (
    check_knowledge,
    check_knowledge_config,
    check_knowledge_sources,
    check_llm,
    check_mcps,
    check_policy,
    check_tools,
    merge_config,
    one_knowledge,
)

__all__ = ["BaseAgent"]


class BaseAgent(BaseAgentAPI, BaseModel, ABC):
    """Abstract Base Class for all third party agents compatible with crewgraph (and CrewAI)."""

    # polymorphic_serialization: a Task's or Crew's agent dumps as its own class (CrewAI's
    # SerializeAsAny[BaseAgent], without importing pydantic's serializer module).
    model_config = ConfigDict(
        arbitrary_types_allowed=True,
        validate_assignment=True,
        extra="forbid",
        defer_build=True,
        polymorphic_serialization=True,
    )

    id: UUID4 = Field(default_factory=uuid.uuid4, frozen=True)
    role: str = Field(min_length=1, description="Role of the agent")
    goal: str = Field(min_length=1, description="Objective of the agent")
    backstory: str = Field(default="", description="Backstory of the agent")
    cache: bool = True
    verbose: bool = False
    max_rpm: int | None = Field(default=None, ge=1)
    allow_delegation: bool = False
    tools: Annotated[list[Any], JSON_TOOLS] = Field(default_factory=list)
    max_iter: int = Field(default=25, ge=1)
    llm: Annotated[Any, JSON_NAMED] = Field(default=None, description="Model name or BaseLLM; None uses the crew's")
    memory: Annotated[Any, JSON_NAMED] = Field(default=None, description="bool, Memory, MemoryScope or MemorySlice")
    checkpoint: Annotated[Any, JSON_NAMED] = Field(
        default=None, description="CheckpointConfig/True for this agent's own kickoff (in a crew, the crew's setting applies)"
    )
    security_config: SecurityConfigField = Field(
        default_factory=SecurityConfig, description="Security settings: the fingerprint that identifies it"
    )
    config: dict[str, Any] | None = Field(
        default=None, description="A YAML entry's fields (explicit keywords win over it); kept as given"
    )
    entity_type: Literal["agent"] = Field(default="agent", description="What kind of entity this is (CrewAI's tag)")
    adapted_agent: bool = Field(default=False, description="True for agents of other frameworks (adapters)")
    max_tokens: int | None = Field(default=None, ge=1, description="Most tokens per reply of this agent's model")
    tool_failure_policy: Any = None
    knowledge_sources: list[Any] | None = Field(
        default=None, description="Knowledge only this agent draws on (BaseKnowledgeSource objects)"
    )
    knowledge_config: Any = Field(default=None, description="KnowledgeConfig: results limit and score threshold")
    knowledge: Any = Field(default=None, description="A built Knowledge object only this agent draws on")
    mcps: list[Any] | None = Field(
        default=None, description="MCP servers whose tools the agent gets: URLs, MCPServerStdio/HTTP/SSE, dicts"
    )
    skills: list[Any] | None = Field(
        default=None, description="Agent Skills: skill folders (with a SKILL.md), folders of them, or Skill objects"
    )
    _original_role: str | None = PrivateAttr(default=None)
    _original_goal: str | None = PrivateAttr(default=None)
    _original_backstory: str | None = PrivateAttr(default=None)
    _tool_failures: list[Any] = PrivateAttr(default_factory=list)
    _rpm_controller: Any = PrivateAttr(default=None)
    _cache_handler: Any = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def process_model_config(cls, data: Any) -> Any:
        """``config`` supplies fields (CrewAI's); CrewAI fields crewgraph lacks fail by name."""
        config = data.get("config") if isinstance(data, dict) else None
        data = merge_config(data, cls.__name__)
        if isinstance(data, dict) and config is not None:
            data["config"] = config
        return reject_unsupported(data, _table(cls), cls.model_fields)

    @field_validator("skills")
    @classmethod
    def _valid_skills(cls, v: list[Any] | None) -> list[Any] | None:
        from crewgraph.skills.check import check_skill_entries

        return check_skill_entries(v)

    @model_validator(mode="after")
    def _one_knowledge(self) -> "BaseAgent":
        one_knowledge(self, f"{type(self).__name__} {self.role!r}")
        return self

    _validate_policy = field_validator("tool_failure_policy", mode="before")(
        classmethod(lambda cls, v: check_policy(v))
    )
    _validate_mcps = field_validator("mcps", mode="before")(
        classmethod(lambda cls, v: None if v is None else check_mcps(v))
    )
    _validate_knowledge = field_validator("knowledge_sources", mode="before")(
        classmethod(lambda cls, v: None if v is None else check_knowledge_sources(v))
    )
    _validate_knowledge_object = field_validator("knowledge", mode="before")(
        classmethod(lambda cls, v: check_knowledge(v))
    )
    _validate_knowledge_config = field_validator("knowledge_config", mode="before")(
        classmethod(lambda cls, v: check_knowledge_config(v))
    )
    _validate_tools = field_validator("tools", mode="before")(classmethod(lambda cls, v: check_tools(v)))
    _validate_base_llm = field_validator("llm", mode="before")(classmethod(lambda cls, v: check_llm(v)))

    @classmethod
    def from_checkpoint(cls, config: Any) -> Self:
        """The agent recorded in the checkpoint ``config.restore_from`` names (one of CrewAI's
        checkpoint files or ``<database>#<id>``, written by an agent's or a one-agent crew's run),
        checkpointing its later runs next to it. A solo kickoff is one step, checkpointed when it
        ends: the restored agent's next ``kickoff`` is a new run."""
        from crewgraph.state.restore import agent_from_checkpoint

        return agent_from_checkpoint(cls, config)

    @classmethod
    def fork(cls, config: Any, branch: str | None = None) -> Self:
        """:meth:`from_checkpoint`, its later checkpoints written on branch ``branch``."""
        from crewgraph.state.restore import agent_from_checkpoint

        return agent_from_checkpoint(cls, config, fork=True, branch=branch)

    @abstractmethod
    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """Do ``task`` (with ``context``, the text of the tasks it depends on) and return the answer."""

    @abstractmethod
    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        """Prepare what executes this agent's work, with ``tools``."""

    @abstractmethod
    def get_delegation_tools(self, agents: "Sequence[BaseAgent]") -> list[Any]:
        """The tools this agent uses to delegate work to (or ask) ``agents``."""

    @property
    def fingerprint(self) -> Fingerprint:
        """The agent's identity (``security_config.fingerprint``); events name it as their source."""
        return self.security_config.fingerprint

    def set_fingerprint(self, fingerprint: Fingerprint) -> None:
        """Give the agent ``fingerprint`` (e.g. a seeded one that is the same on every run)."""
        self.security_config.fingerprint = fingerprint

    def get_platform_tools(self, apps: list[Any]) -> list[Any]:
        """CrewAI's platform (AMP) apps: not supported, so asking for any is an error."""
        if apps:
            raise ValueError("platform apps (CrewAI AMP) are not supported by crewgraph")
        return []

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BaseAgent) and other.id == self.id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(role={self.role!r}, goal={self.goal[:40]!r})"


def _table(cls: type) -> str:
    """Which table of unsupported CrewAI fields applies: ``Agent``'s for agents, else ``BaseAgent``'s."""
    return "Agent" if any(c.__name__ == "Agent" and c.__module__ == "crewgraph.spec.agent" for c in cls.__mro__) \
        else "BaseAgent"
