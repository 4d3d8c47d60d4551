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

from collections.abc import Generator, Iterable
from contextlib import contextmanager
from contextvars import ContextVar
from enum import StrEnum
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from crewgraph.errors import ToolExecutionFailedError

__all__ = [
    "ToolExecutionFailedError",
    "ToolFailure",
    "ToolFailurePolicy",
    "ToolFailureReason",
    "ToolFailureRecord",
    "active_tool_failures",
    "collect_tool_failures",
    "detect_tool_failure",
    "failure_from_exception",
    "handle_tool_failure",
    "merge_tool_failures",
    "reportable_failure",
    "resolve_failure_policy",
    "resolve_tool_failure_policy",
    "tool_failure_collector",
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
    details: dict[str, Any] = Field(default_factory=dict)
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
    tool_args: dict[str, Any] | str | None = Field(
        default=None, validation_alias=AliasChoices("tool_args", "arguments"),
        description="The arguments of the failed call (CrewAI's name; ``arguments`` is accepted too)",
    )
    agent_role: str | None = None
    task_name: str | None = None
    task_id: str | None = None
    policy: ToolFailurePolicy = ToolFailurePolicy.WARN
    call_id: str | None = None
    attempts: int = Field(default=1, ge=1)

    @property
    def arguments(self) -> dict[str, Any] | str | None:
        """``tool_args`` under crewgraph's earlier name."""
        return self.tool_args

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


# -- CrewAI's functions over failures ---------------------------------------------------------

def detect_tool_failure(result: Any) -> ToolFailure | None:
    """The failure a tool declared by returning a :class:`ToolFailure`; None for any other value
    (text that reads like an error is a result, never guessed to be a failure)."""
    return result if isinstance(result, ToolFailure) else None


def failure_from_exception(error: BaseException, *, retryable: bool = False) -> ToolFailure:
    """The :class:`ToolFailure` for an exception a tool raised (reason ``EXCEPTION``, the
    exception's class name as ``code``)."""
    return ToolFailure(
        message=str(error) or type(error).__name__,
        reason=ToolFailureReason.EXCEPTION,
        code=type(error).__name__,
        retryable=retryable,
    )


def resolve_tool_failure_policy(
    tool: Any = None, agent: Any = None, task: Any = None, crew: Any = None
) -> ToolFailurePolicy:
    """The policy of one call: the first ``tool_failure_policy`` set on the tool, the task, the
    agent, then the crew; else ``WARN``. Unlike :func:`resolve_failure_policy` (which checks
    definitions and raises), an invalid value here is logged and skipped, as CrewAI does, so
    reading a policy never breaks a tool call."""
    for source in (tool, getattr(tool, "_original_tool", None), task, agent, crew):
        policy = getattr(source, "tool_failure_policy", None) if source is not None else None
        if policy is None:
            continue
        try:
            return ToolFailurePolicy(str(getattr(policy, "value", policy)).lower())
        except ValueError:
            import logging

            logging.getLogger("crewgraph.tools").warning("ignoring invalid tool_failure_policy %r on %s", policy, type(source).__name__)
    return ToolFailurePolicy.WARN


def merge_tool_failures(*groups: list[ToolFailureRecord]) -> list[ToolFailureRecord]:
    """The records of ``groups`` in order, each failure once (a guardrail retry rebuilds an
    output from overlapping lists, so equal records are dropped, not only identical objects)."""
    merged: list[ToolFailureRecord] = []
    seen: set[tuple[Any, ...]] = set()
    for group in groups:
        for record in group:
            key = (record.tool_name, record.failure.message, record.failure.code, record.task_id,
                   str(record.tool_args))
            if key not in seen:
                seen.add(key)
                merged.append(record)
    return merged


_active: ContextVar[list[ToolFailureRecord] | None] = ContextVar("crewgraph_tool_failures", default=None)


@contextmanager
def tool_failure_collector() -> Generator[list[ToolFailureRecord], None, None]:
    """Collect the failures recorded while the block runs (a kickoff inside it included: the
    engine appends every recorded failure to the innermost open collector). Context-local, so
    concurrent runs each see only their own; collectors nest."""
    records: list[ToolFailureRecord] = []
    token = _active.set(records)
    try:
        yield records
    finally:
        _active.reset(token)


def active_tool_failures() -> list[ToolFailureRecord] | None:
    """The records of the innermost open :func:`tool_failure_collector`, or None outside one."""
    return _active.get()


def record_failure(record: ToolFailureRecord, agent: Any = None) -> None:
    """Where a recorded failure goes besides the task output: the open collector, and the
    agent's ``last_tool_failures`` when the agent is known."""
    records = _active.get()
    if records is not None:
        records.append(record)
    failures = getattr(agent, "_tool_failures", None)
    if isinstance(failures, list):
        failures.append(record)


def collect_tool_failures(agent: Any) -> list[ToolFailureRecord]:
    """The failures of the execution in progress (the open collector), else ``agent``'s last
    ones (``agent.last_tool_failures``); never raises for an agent without them."""
    active = _active.get()
    if active is not None:
        return list(active)
    records = getattr(agent, "_tool_failures", None)
    if not isinstance(records, list):
        return []
    return [r for r in records if isinstance(r, ToolFailureRecord)]


def reportable_failure(
    failure: ToolFailure | None, *, tool: Any = None, agent: Any = None, task: Any = None, crew: Any = None
) -> ToolFailure | None:
    """``failure``, or None when the call's policy is ``IGNORE`` (nothing of it is reported)."""
    if failure is None:
        return None
    policy = resolve_tool_failure_policy(tool=tool, agent=agent, task=task, crew=crew)
    return None if policy is ToolFailurePolicy.IGNORE else failure


def handle_tool_failure(
    failure: ToolFailure,
    *,
    tool_name: str,
    tool_args: dict[str, Any] | str | None = None,
    tool: Any = None,
    agent: Any = None,
    task: Any = None,
    crew: Any = None,
) -> ToolFailureRecord | None:
    """Apply the call's policy to a failure, as the engine does for its own tool calls: None
    under ``IGNORE``; otherwise record it (open collector, the agent's ``last_tool_failures``),
    emit ``ToolFailureDetectedEvent`` on the event bus, and under ``RAISE`` raise
    :class:`ToolExecutionFailedError`. For code that runs tools outside the engine."""
    policy = resolve_tool_failure_policy(tool=tool, agent=agent, task=task, crew=crew)
    if policy is ToolFailurePolicy.IGNORE:
        return None
    record = ToolFailureRecord(
        tool_name=tool_name,
        failure=failure,
        tool_args=tool_args,
        agent_role=getattr(agent, "role", None),
        task_name=(getattr(task, "name", None) or getattr(task, "description", None)) if task else None,
        task_id=str(task.id) if task is not None and getattr(task, "id", None) is not None else None,
        policy=policy,
    )
    record_failure(record, agent)
    from crewgraph.events.bus import crewgraph_event_bus
    from crewgraph.events.tool_events import ToolFailureDetectedEvent

    crewgraph_event_bus.emit(agent, ToolFailureDetectedEvent(
        tool_name=tool_name, failure=failure, policy=policy.value, agent_role=record.agent_role,
        task_name=record.task_name,
    ))
    if policy is ToolFailurePolicy.RAISE:
        raise ToolExecutionFailedError(record.summary(), record=record)
    return record
