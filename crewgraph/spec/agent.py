"""Agent: a role-playing worker (role, goal, backstory) with a model and tools.

A pure definition: it holds configuration, validated by pydantic with
CrewAI's field names and defaults. The compiler turns it into the
configuration of ``agent_step`` nodes; nothing here calls a model.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import (
    UUID4,
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
    model_validator,
)

from crewgraph.spec._dump import named_for_json, tools_for_json
from crewgraph.spec._unsupported import reject_unsupported
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
    max_tool_result_chars: int | None = Field(
        default=None, ge=1, description="Most characters of one tool result the model reads"
    )
    system_template: str | None = None
    max_tokens: int | None = Field(default=None, ge=1, description="Most tokens per reply of this agent's model")
    reasoning: bool = Field(default=False, description="Plan the task (a reasoning node) before working on it")
    max_reasoning_attempts: int | None = Field(
        default=None, ge=1, description="Most plan refinements; None: until the plan is ready (at most 5)"
    )
    inject_date: bool = Field(default=False, description="Tell the agent today's date in each task prompt")
    date_format: str = Field(default="%Y-%m-%d", min_length=1)
    respect_context_window: bool = Field(
        default=True, description="Summarise or trim the oldest conversation instead of overflowing the model"
    )
    allow_code_execution: bool = Field(default=False, description="Give the agent CodeInterpreterTool")
    code_execution_mode: Literal["safe", "unsafe"] = "safe"
    multimodal: bool = Field(default=False, description="Send image/PDF/audio input files to the model as content")
    mcps: list[Any] = Field(
        default_factory=list,
        description="MCP servers whose tools the agent gets: URLs, MCPServerStdio/HTTP/SSE, dicts",
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_config(cls, data: Any) -> Any:
        return reject_unsupported(merge_config(data, "Agent"), "Agent", cls.model_fields)

    @field_serializer("tools", when_used="json")
    def _tools_json(self, tools: list[Any]) -> list[Any]:
        return tools_for_json(tools, f"Agent {self.role!r}")

    @field_serializer("llm", "function_calling_llm", "step_callback", "memory", when_used="json")
    def _name_objects(self, value: Any) -> Any:
        return named_for_json(value, f"Agent {self.role!r}")

    @field_validator("date_format")
    @classmethod
    def _valid_date_format(cls, v: str) -> str:
        try:
            datetime(2025, 5, 21).strftime(v)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"date_format {v!r} is not a strftime format: {exc}") from exc
        return v

    @model_validator(mode="after")
    def _code_execution_sandbox(self) -> Agent:
        if self.allow_code_execution and self.code_execution_mode == "safe":
            raise ValueError(
                "allow_code_execution=True with code_execution_mode='safe' asks for CrewAI's Docker "
                "sandbox, which crewgraph does not have. Set code_execution_mode='unsafe' to run the "
                "agent's code in a separate Python process (a timeout and a scratch directory, but NOT "
                "a sandbox: it runs as you), or run the whole crew in a container"
            )
        return self

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
