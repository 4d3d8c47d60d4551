"""ToolFailure, its policy enum, records and the tool -> task -> agent -> crew -> warn chain."""

from __future__ import annotations

import pytest

from crewgraph.errors import ToolExecutionFailedError as RootError
from crewgraph.tools.tool_failure import (
    ToolExecutionFailedError,
    ToolFailure,
    ToolFailurePolicy,
    ToolFailureReason,
    ToolFailureRecord,
    resolve_failure_policy,
)


def test_policy_values_are_the_seed_strings() -> None:
    assert [p.value for p in ToolFailurePolicy] == ["ignore", "warn", "raise"]
    assert ToolFailurePolicy("raise") is ToolFailurePolicy.RAISE
    assert ToolFailurePolicy.WARN == "warn"
    assert str(ToolFailurePolicy.IGNORE) == "ignore"


def test_reasons_are_crewais_members_with_the_old_names_as_aliases() -> None:
    names = {r.name for r in ToolFailureReason}
    assert names == {"TOOL_REPORTED", "EXCEPTION", "USAGE_LIMIT", "UNKNOWN_TOOL", "INVALID_INPUT",
                     "MCP_ERROR", "REPEATED_CALL"}
    assert ToolFailureReason.USAGE_LIMIT.value == "usage_limit"
    assert ToolFailureReason.USAGE_LIMIT_EXCEEDED is ToolFailureReason.USAGE_LIMIT
    assert ToolFailureReason.INVALID_ARGUMENTS is ToolFailureReason.INVALID_INPUT
    assert ToolFailureReason.REMOTE_ERROR is ToolFailureReason.MCP_ERROR


def test_tool_failure_defaults_and_agent_message() -> None:
    failure = ToolFailure(
        message="Slack rejected the message: channel_not_found",
        code="channel_not_found",
        retryable=False,
    )
    assert failure.reason is ToolFailureReason.TOOL_REPORTED
    assert failure.details == {}  # CrewAI: default_factory=dict
    assert failure.as_agent_message() == "Slack rejected the message: channel_not_found"


def test_record_exposes_failure_fields_and_summary() -> None:
    record = ToolFailureRecord(
        tool_name="send_slack_message",
        failure=ToolFailure(message="Slack rejected the message", code="channel_not_found"),
        arguments={"channel": "#x"},
        agent_role="Slack Messenger",
        task_name="post",
        policy=ToolFailurePolicy.WARN,
    )
    assert record.failure.code == "channel_not_found"
    assert record.failure.reason is ToolFailureReason.TOOL_REPORTED
    assert record.reason is ToolFailureReason.TOOL_REPORTED
    summary = record.summary()
    for part in ("send_slack_message", "'post'", "Slack Messenger", "tool_reported", "channel_not_found"):
        assert part in summary


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        ((None, None, None, None), ToolFailurePolicy.WARN),
        ((), ToolFailurePolicy.WARN),
        ((ToolFailurePolicy.IGNORE, ToolFailurePolicy.RAISE), ToolFailurePolicy.IGNORE),
        ((None, ToolFailurePolicy.RAISE, ToolFailurePolicy.WARN), ToolFailurePolicy.RAISE),
        ((None, None, "ignore", "raise"), ToolFailurePolicy.IGNORE),
        ((None, None, None, "RAISE"), ToolFailurePolicy.RAISE),
    ],
)
def test_most_specific_policy_wins(chain: tuple[object, ...], expected: ToolFailurePolicy) -> None:
    assert resolve_failure_policy(chain) is expected


def test_unknown_policy_string_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="ignore, warn, raise"):
        resolve_failure_policy(["explode"])


def test_error_is_reexported_from_errors() -> None:
    assert ToolExecutionFailedError is RootError
