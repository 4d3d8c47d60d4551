"""Declared tool failures: what went wrong, why, and what the run does about it.

A tool that "succeeds" at the Python level can still fail at its job (an API
answering 200 with ``{"ok": false}``). Returning :class:`ToolFailure` instead
of an error string lets the framework tell the two apart without guessing
from text. Every failure the framework detects (reported, raised, usage limit,
unknown tool, bad arguments) becomes a :class:`ToolFailureRecord` that lands on
``TaskOutput.tool_failures`` and ``CrewOutput.tool_failures`` under the
``warn`` and ``raise`` policies.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from crewgraph.errors import ToolExecutionFailedError

__all__ = [
    "ToolExecutionFailedError",
    "ToolFailure",
    "ToolFailurePolicy",
    "ToolFailureReason",
    "ToolFailureRecord",
    "resolve_failure_policy",
]


class ToolFailurePolicy(StrEnum):
    """What happens when a tool call fails.

    ``IGNORE`` records nothing and emits no failure event; ``WARN`` (the
    effective default) records the failure, emits ``ToolFailureDetectedEvent``
    and carries on; ``RAISE`` records, emits, then aborts the run with
    :class:`ToolExecutionFailedError`.
    """

    IGNORE = "ignore"
    WARN = "warn"
    RAISE = "raise"


class ToolFailureReason(StrEnum):
    """Why a call counts as failed; detection is declarative, never a guess from text."""

    TOOL_REPORTED = "tool_reported"
    """The tool returned a :class:`ToolFailure`."""
    EXCEPTION = "exception"
    """The tool raised."""
    USAGE_LIMIT = "usage_limit"
    """The tool's ``max_usage_count`` was used up."""
    UNKNOWN_TOOL = "unknown_tool"
    """The model named a tool the agent does not have."""
    INVALID_INPUT = "invalid_input"
    """The arguments were not JSON or did not match the tool's args schema."""
    MCP_ERROR = "mcp_error"
    """A remote tool server (MCP ``isError``) reported an error."""
    REPEATED_CALL = "repeated_call"
    """The same tool was called again with the same arguments (CrewAI's name; crewgraph
    answers a repeated call from the run's tool cache and does not report it as a failure)."""
    # crewgraph's earlier names, kept as aliases of CrewAI's members
    USAGE_LIMIT_EXCEEDED = "usage_limit"
    INVALID_ARGUMENTS = "invalid_input"
    REMOTE_ERROR = "mcp_error"


class ToolFailure(BaseModel):
    """A failure a tool reports by returning this instead of raising.

    ``retryable=True`` asks the framework to run the call again (under the
    tool node's retry policy) before recording the failure. ``reason`` is
    ``TOOL_REPORTED`` for failures a tool returns; the framework sets the other
    reasons on the failures it detects itself.
    """

    model_config = ConfigDict(frozen=True)

    message: str
    code: str | None = None
    retryable: bool = False
    details: dict[str, Any] | None = None
    reason: ToolFailureReason = ToolFailureReason.TOOL_REPORTED

    def as_agent_message(self) -> str:
        """The plain text the model reads in place of a result: the message, as an error
        string would have been, with the failure's code (``[code: ...]``) when it has one,
        so the model can tell one failure from another."""
        if self.code and self.code not in self.message:
            return f"{self.message} [code: {self.code}]"
        return self.message

    def __str__(self) -> str:
        return self.as_agent_message()


class ToolFailureRecord(BaseModel):
    """One recorded failure, structured so downstream code never parses strings."""

    model_config = ConfigDict(frozen=True)

    tool_name: str
    failure: ToolFailure
    arguments: dict[str, Any] | str | None = None
    agent_role: str | None = None
    task_name: str | None = None
    policy: ToolFailurePolicy = ToolFailurePolicy.WARN
    call_id: str | None = None
    attempts: int = Field(default=1, ge=1)

    @property
    def reason(self) -> ToolFailureReason:
        return self.failure.reason

    @property
    def code(self) -> str | None:
        return self.failure.code

    @property
    def message(self) -> str:
        return self.failure.message

    def summary(self) -> str:
        """One line for logs: tool, where it ran, why, and the message."""
        where = []
        if self.task_name:
            where.append(f"task {self.task_name!r}")
        if self.agent_role:
            where.append(f"agent {self.agent_role!r}")
        place = f" in {', '.join(where)}" if where else ""
        code = f" [{self.failure.code}]" if self.failure.code else ""
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return (
            f"Tool {self.tool_name!r}{place} failed ({self.reason.value}){code}{tries}: "
            f"{self.failure.message}"
        )


def resolve_failure_policy(chain: Iterable[Any]) -> ToolFailurePolicy:
    """The first non-None policy of ``chain`` (tool, task, agent, crew), else ``WARN``.

    Values may be :class:`ToolFailurePolicy` members or their string values,
    so YAML-configured crews work unchanged.
    """
    for value in chain:
        if value is None:
            continue
        if isinstance(value, ToolFailurePolicy):
            return value
        try:
            return ToolFailurePolicy(str(value).lower())
        except ValueError:
            allowed = ", ".join(p.value for p in ToolFailurePolicy)
            raise ValueError(f"unknown tool_failure_policy {value!r}; use one of {allowed}") from None
    return ToolFailurePolicy.WARN
