"""Agent: a role-playing worker (role, goal, backstory) with a model and tools.

A pure definition: it holds configuration, validated by pydantic with
CrewAI's field names and defaults. The compiler turns it into the
configuration of ``agent_step`` nodes; nothing here calls a model.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from pydantic import UUID4, BaseModel, ConfigDict, Field, field_validator, model_validator

from crewgraph.spec._validators import (
    check_llm,
    check_mcps,
    check_policy,
    check_tools,
    merge_config,
)

__all__ = ["Agent"]


class Agent(BaseModel):
    """One agent of a crew. ``llm`` may be a model name (``"gpt-4o-mini"``) or a BaseLLM."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid", defer_build=True)

    id: UUID4 = Field(default_factory=uuid.uuid4, frozen=True)
    role: str = Field(min_length=1, description="Role of the agent")
    goal: str = Field(min_length=1, description="Objective of the agent")
    backstory: str = Field(default="", description="Backstory of the agent")
    llm: Any = Field(default=None, description="Model name or BaseLLM; None uses the crew's")
    function_calling_llm: Any = Field(default=None)
    tools: list[Any] = Field(default_factory=list)
    max_iter: int = Field(default=25, ge=1)
    max_rpm: int | None = Field(default=None, ge=1)
    max_execution_time: float | None = Field(default=None, gt=0)
    max_retry_limit: int = Field(default=2, ge=0)
    allow_delegation: bool = False
    verbose: bool = False
    cache: bool = True
    memory: Any = Field(default=None, description="bool, Memory, MemoryScope or MemorySlice")
    tool_failure_policy: Any = None
    step_callback: Callable[..., Any] | None = None
    system_template: str | None = None
    mcps: list[Any] = Field(
        default_factory=list,
        description="MCP servers whose tools the agent gets: URLs, MCPServerStdio/HTTP/SSE, dicts",
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_config(cls, data: Any) -> Any:
        return merge_config(data, "Agent")

    _validate_tools = field_validator("tools", mode="before")(classmethod(lambda cls, v: check_tools(v)))
    _validate_llm = field_validator("llm", "function_calling_llm", mode="before")(
        classmethod(lambda cls, v: check_llm(v))
    )

    _validate_policy = field_validator("tool_failure_policy", mode="before")(
        classmethod(lambda cls, v: check_policy(v))
    )
    _validate_mcps = field_validator("mcps", mode="before")(classmethod(lambda cls, v: check_mcps(v)))

    @property
    def key(self) -> str:
        """A short stable name for ids and logs."""
        return self.role

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Agent) and other.id == self.id

    def __repr__(self) -> str:
        return f"Agent(role={self.role!r}, goal={self.goal[:40]!r})"
