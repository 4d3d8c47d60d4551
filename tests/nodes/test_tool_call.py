"""ToolCallNode: one tool invocation, run directly with a NodeContext (no scheduler needed)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph.errors import ToolExecutionFailedError
from crewgraph.events.tool_events import (
    ToolExecutionErrorEvent,
    ToolFailureDetectedEvent,
    ToolSelectionErrorEvent,
    ToolUsageErrorEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
)
from crewgraph.graph import NodeContext, NodeResult, RetryPolicy, RunState
from crewgraph.llm.types import ToolCall
from crewgraph.nodes.tool_call import TOOL_RETRY_POLICY, ToolCallNode, ToolCallOutcome
from crewgraph.tools import BaseTool, ToolFailure, ToolFailurePolicy, ToolFailureReason, tool
from crewgraph.tools._errors import RetryableToolError


class Inventory(BaseModel):
    sku: str
    quantity: int
    needs_reorder: bool


class InventoryTool(BaseTool):
    name: str = "Inventory Check"
    description: str = "Checks current stock for a product SKU."

    def _run(self, sku: str) -> Inventory:
        quantity = {"SKU-123": 14, "SKU-456": 0}.get(sku, 0)
        return Inventory(sku=sku, quantity=quantity, needs_reorder=quantity < 5)


class Flaky(BaseTool):
    """Reports a retryable failure ``fail_times`` times, then succeeds."""

    name: str = "flaky"
    description: str = "Sometimes rate limited."
    fail_times: int = 10
    calls: int = 0

    def _run(self, x: int = 0) -> Any:
        self.calls += 1
        if self.calls <= self.fail_times:
            return ToolFailure(message="rate limited, try later", code="rate_limited", retryable=True)
        return f"ok {x}"


@tool
def multiplication_tool(first_number: int, second_number: int) -> str:
    """Useful for when you need to multiply two numbers together."""
    return first_number * second_number  # type: ignore[return-value]  # as in the seed


@tool
def boom(reason: str = "kaput") -> str:
    """Always raises."""
    raise RuntimeError(reason)


@tool
def reporter(channel: str) -> Any:
    """Reports a non-retryable failure."""
    return ToolFailure(message=f"Slack rejected the message: channel_not_found ({channel})", code="channel_not_found")


def _ctx(events: list[Any] | None = None, *, state: RunState | None = None, attempt: int = 1) -> NodeContext:
    sink: list[Any] = events if events is not None else []
    return NodeContext(run_id="r", node_id="n", emit=sink.append, state=state or RunState(), attempt=attempt)


def _node(t: BaseTool | None, args: dict[str, Any] | str = "{}", *, name: str | None = None, **kw: Any) -> ToolCallNode:
    arguments = args if isinstance(args, str) else json.dumps(args)
    call = ToolCall(id=kw.pop("call_id", "call-1"), name=name or (t.name if t else "missing"), arguments=arguments)
    available = kw.pop("available", (t.to_spec().name,) if t else ())
    return ToolCallNode(id=kw.pop("id", "tool-1"), call=call, tool=t, available=available, **kw)


def _run(node: ToolCallNode, ctx: NodeContext) -> ToolCallOutcome:
    result = asyncio.run(node.run(ctx))
    assert isinstance(result, NodeResult)
    assert isinstance(result.output, ToolCallOutcome)
    return result.output


def _types(events: list[Any]) -> list[type]:
    return [type(e) for e in events]


# --- success paths -----------------------------------------------------------


def test_success_formats_for_agent_and_keeps_raw_value() -> None:
    events: list[Any] = []
    t = InventoryTool()
    out = _run(_node(t, {"sku": "SKU-123"}, task_name="stock", agent_role="Clerk"), _ctx(events))
    assert json.loads(out.text) == {"sku": "SKU-123", "quantity": 14, "needs_reorder": False}
    assert isinstance(out.raw, Inventory)
    assert out.failure is None and out.call_id == "call-1" and out.tool_name == "Inventory Check"
    assert _types(events) == [ToolUsageStartedEvent, ToolUsageFinishedEvent]
    assert events[0].tool_args == {"sku": "SKU-123"} and events[0].task_name == "stock"
    assert events[1].output == out.text and events[1].failure is None
    assert t.current_usage_count == 1


def test_format_output_override_is_what_the_model_reads() -> None:
    class Pretty(InventoryTool):
        def format_output_for_agent(self, raw_result: object) -> str:
            result = Inventory.model_validate(raw_result)
            status = "reorder needed" if result.needs_reorder else "stock is healthy"
            return f"{result.sku}: {result.quantity} units. {status}."

    out = _run(_node(Pretty(), {"sku": "SKU-456"}), _ctx())
    assert out.text == "SKU-456: 0 units. reorder needed."
    assert isinstance(out.raw, Inventory)


def test_async_tool_is_awaited_and_result_as_answer_propagates() -> None:
    @tool("final", result_as_answer=True)
    async def final(text: str) -> str:
        """Gives the final answer."""
        await asyncio.sleep(0)
        return text.upper()

    out = _run(_node(final, {"text": "done"}), _ctx())
    assert out.text == "DONE" and out.result_as_answer is True


def test_node_result_info() -> None:
    result = asyncio.run(_node(InventoryTool(), {"sku": "x"}, name="Inventory_Check").run(_ctx()))
    assert result.info == {"tool": "Inventory_Check", "args": {"sku": "x"}, "failed": False, "from_cache": False}


def test_sync_tools_run_in_threads_so_parallel_calls_overlap() -> None:
    barrier = threading.Barrier(2, timeout=10)

    @tool
    def meet(who: str) -> str:
        """Waits for the other call."""
        barrier.wait()  # both calls must be in flight at once, or this breaks
        return f"met {who}"

    async def both() -> list[NodeResult]:
        ctx = _ctx()
        nodes = [_node(meet, {"who": w}, id=f"t-{w}", call_id=w) for w in ("a", "b")]
        return await asyncio.gather(*(n.run(ctx) for n in nodes))

    texts = [r.output.text for r in asyncio.run(both())]
    assert texts == ["met a", "met b"]


# --- cache -------------------------------------------------------------------


def test_identical_calls_hit_the_cache_without_counting_usage() -> None:
    events: list[Any] = []
    state = RunState()
    t = InventoryTool()
    first = _run(_node(t, '{"sku": "SKU-123"}'), _ctx(events, state=state))
    second = _run(_node(t, '{ "sku" : "SKU-123" }'), _ctx(events, state=state))
    assert second.from_cache and not first.from_cache
    assert second.text == first.text and isinstance(second.raw, Inventory)
    assert t.current_usage_count == 1
    assert events[-1].from_cache is True
    assert list(state.tool_cache) == [(f"Inventory Check#{id(t):x}", '{"sku":"SKU-123"}')]


def test_same_named_tools_with_different_settings_never_share_cache_entries(tmp_path: Path) -> None:
    from crewgraph.toolkit import FileReadTool

    (tmp_path / "a.txt").write_text("alpha", encoding="utf-8")
    (tmp_path / "b.txt").write_text("beta", encoding="utf-8")
    state = RunState()
    read_a = FileReadTool(file_path=str(tmp_path / "a.txt"))
    read_b = FileReadTool(file_path=str(tmp_path / "b.txt"))
    assert read_a.name == read_b.name
    first = _run(_node(read_a, {}), _ctx(state=state))
    second = _run(_node(read_b, {}), _ctx(state=state))
    assert (first.text, second.text) == ("alpha", "beta") and not second.from_cache
    assert _run(_node(read_a, {}), _ctx(state=state)).from_cache  # the same instance still hits


def test_cache_key_is_canonical_after_validation() -> None:
    state = RunState()
    _run(_node(multiplication_tool, {"first_number": 2, "second_number": 3}), _ctx(state=state))
    again = _run(_node(multiplication_tool, {"second_number": "3", "first_number": "2"}), _ctx(state=state))
    assert again.from_cache and again.text == "6"


def test_cache_disabled_on_the_node() -> None:
    state = RunState()
    t = InventoryTool()
    for _ in range(2):
        out = _run(_node(t, {"sku": "a"}, cache=False), _ctx(state=state))
        assert not out.from_cache
    assert t.current_usage_count == 2 and not state.tool_cache


def test_cache_function_gates_what_is_cached() -> None:
    @tool
    def mul(first_number: int, second_number: int) -> str:
        """Multiplies."""
        return first_number * second_number  # type: ignore[return-value]

    def cache_func(args: dict[str, Any], result: int) -> bool:
        return result % 2 == 0

    mul.cache_function = cache_func
    state = RunState()
    _run(_node(mul, {"first_number": 3, "second_number": 3}), _ctx(state=state))  # 9: odd
    _run(_node(mul, {"first_number": 2, "second_number": 3}), _ctx(state=state))  # 6: even
    odd = _run(_node(mul, {"first_number": 3, "second_number": 3}), _ctx(state=state))
    even = _run(_node(mul, {"first_number": 2, "second_number": 3}), _ctx(state=state))
    assert (odd.from_cache, even.from_cache) == (False, True)
    assert mul.current_usage_count == 3


def test_failures_are_not_cached() -> None:
    state = RunState()
    _run(_node(boom, {}), _ctx(state=state))
    assert not state.tool_cache


# --- failures the model can recover from -------------------------------------


def test_unknown_tool_lists_available_tools() -> None:
    events: list[Any] = []
    out = _run(_node(None, {}, name="web_search", available=("Inventory_Check", "flaky")), _ctx(events))
    assert "'web_search' does not exist" in out.text
    assert "Inventory_Check, flaky" in out.text
    assert out.failure.reason is ToolFailureReason.UNKNOWN_TOOL
    assert out.failure.tool_name == "web_search"
    assert _types(events) == [ToolUsageStartedEvent, ToolSelectionErrorEvent, ToolUsageFinishedEvent,
                              ToolFailureDetectedEvent]
    assert "'web_search' does not exist" in events[1].error


def test_arguments_that_are_not_json() -> None:
    out = _run(_node(InventoryTool(), "{sku: SKU-1"), _ctx())
    assert "not valid JSON" in out.text and '"sku"' in out.text
    assert out.failure.reason is ToolFailureReason.INVALID_INPUT
    assert out.failure.arguments == "{sku: SKU-1"


def test_arguments_failing_the_schema_name_the_field() -> None:
    t = InventoryTool()
    out = _run(_node(t, {"sku": 5, "extra": 1}), _ctx())
    assert "field 'sku'" in out.text
    assert out.failure.reason is ToolFailureReason.INVALID_INPUT
    assert t.current_usage_count == 0
    missing = _run(_node(multiplication_tool, {"first_number": 1}), _ctx())
    assert "field 'second_number': Field required" in missing.text


def test_usage_limit() -> None:
    state = RunState()

    @tool(max_usage_count=1)
    def once(n: int) -> str:
        """Only once."""
        return f"n={n}"

    assert _run(_node(once, {"n": 1}), _ctx(state=state)).text == "n=1"
    assert _run(_node(once, {"n": 1}), _ctx(state=state)).from_cache  # cache hits are free
    out = _run(_node(once, {"n": 2}), _ctx(state=state))
    assert "usage limit (1 uses)" in out.text
    assert out.failure.reason is ToolFailureReason.USAGE_LIMIT
    assert once.current_usage_count == 1


def test_reported_failure_is_recorded_with_its_code() -> None:
    events: list[Any] = []
    out = _run(_node(reporter, {"channel": "#eng"}, agent_role="Slack Messenger", task_name="post"), _ctx(events))
    assert out.text == "Slack rejected the message: channel_not_found (#eng)"
    assert isinstance(out.raw, ToolFailure)
    record = out.failure
    assert record.failure.code == "channel_not_found"
    assert record.failure.reason is ToolFailureReason.TOOL_REPORTED
    assert record.agent_role == "Slack Messenger" and record.task_name == "post"
    assert record.arguments == {"channel": "#eng"}
    finished = next(e for e in events if isinstance(e, ToolUsageFinishedEvent))
    assert finished.failure is record.failure
    detected = events[-1]
    assert isinstance(detected, ToolFailureDetectedEvent)
    assert (detected.tool_name, detected.policy) == ("reporter", "warn")
    assert detected.failure.message == record.failure.message


def test_exception_becomes_text_record_and_error_event() -> None:
    events: list[Any] = []
    out = _run(_node(boom, {"reason": "disk on fire"}), _ctx(events))
    assert out.text == "Error executing tool 'boom': RuntimeError: disk on fire"
    assert out.failure.reason is ToolFailureReason.EXCEPTION
    assert out.failure.failure.code == "RuntimeError"
    assert _types(events) == [
        ToolUsageStartedEvent,
        ToolUsageErrorEvent,
        ToolExecutionErrorEvent,
        ToolUsageFinishedEvent,
        ToolFailureDetectedEvent,
    ]
    assert events[1].error == "RuntimeError: disk on fire"
    assert isinstance(events[2].error, RuntimeError) and events[2].tool_args == {"reason": "disk on fire"}


# --- policies ----------------------------------------------------------------


def test_ignore_records_nothing_and_emits_no_failure_event() -> None:
    events: list[Any] = []
    out = _run(_node(reporter, {"channel": "c"}, policies=(ToolFailurePolicy.IGNORE, None, None)), _ctx(events))
    assert out.failure is None
    assert "channel_not_found" in out.text  # the model still reads what happened
    assert _types(events) == [ToolUsageStartedEvent, ToolUsageFinishedEvent]
    assert events[-1].failure is None


def test_raise_emits_then_aborts_with_the_record() -> None:
    events: list[Any] = []
    node = _node(reporter, {"channel": "c"}, task_name="Post report", policies=(ToolFailurePolicy.RAISE,))
    with pytest.raises(ToolExecutionFailedError) as info:
        _run(node, _ctx(events))
    message = str(info.value)
    assert "'reporter'" in message and "'Post report'" in message and "tool_reported" in message
    assert info.value.record.failure.code == "channel_not_found"
    assert info.value.record.policy is ToolFailurePolicy.RAISE
    assert isinstance(events[-1], ToolFailureDetectedEvent) and events[-1].policy == "raise"
    assert not TOOL_RETRY_POLICY.should_retry(info.value)


def test_tool_policy_beats_task_agent_and_crew() -> None:
    strict = reporter.model_copy(update={"tool_failure_policy": ToolFailurePolicy.RAISE})
    with pytest.raises(ToolExecutionFailedError):
        _run(_node(strict, {"channel": "c"}, policies=(ToolFailurePolicy.IGNORE, None, None)), _ctx())
    lenient = reporter.model_copy(update={"tool_failure_policy": ToolFailurePolicy.IGNORE})
    out = _run(_node(lenient, {"channel": "c"}, policies=(ToolFailurePolicy.RAISE,)), _ctx())
    assert out.failure is None


def test_task_beats_agent_beats_crew_strings_accepted() -> None:
    out = _run(_node(reporter, {"channel": "c"}, policies=(None, "warn", "raise")), _ctx())
    assert out.failure.policy is ToolFailurePolicy.WARN
    with pytest.raises(ToolExecutionFailedError):
        _run(_node(reporter, {"channel": "c"}, policies=("raise", "ignore", None)), _ctx())


def test_unknown_tool_under_raise_policy_aborts() -> None:
    with pytest.raises(ToolExecutionFailedError, match="unknown_tool"):
        _run(_node(None, {}, name="ghost", policies=(None, None, "raise")), _ctx())


# --- retries -----------------------------------------------------------------


def _retry_loop(node: ToolCallNode, events: list[Any]) -> tuple[ToolCallOutcome, int]:
    """A tiny stand-in for the scheduler: rerun while the node's policy says retry."""
    state = RunState()
    attempt = 1
    while True:
        try:
            return _run(node, _ctx(events, state=state, attempt=attempt)), attempt
        except Exception as exc:
            if attempt >= node.retry.max_attempts or not node.retry.should_retry(exc):
                raise
            attempt += 1


def test_default_retry_policy_only_retries_retryable_tool_failures() -> None:
    node = _node(InventoryTool(), {"sku": "a"})
    assert node.retry is TOOL_RETRY_POLICY and node.retry.max_attempts == 3
    assert node.retry.should_retry(RetryableToolError("t", ToolFailure(message="m"), 1))
    assert not node.retry.should_retry(RuntimeError("x"))


def test_retryable_failure_is_retried_then_succeeds() -> None:
    events: list[Any] = []
    flaky = Flaky(fail_times=1)
    out, attempts = _retry_loop(_node(flaky, {"x": 7}), events)
    assert (out.text, out.failure, attempts) == ("ok 7", None, 2)
    assert flaky.calls == 2 and flaky.current_usage_count == 1  # a retried call is one use
    finished = [e for e in events if isinstance(e, ToolUsageFinishedEvent)]
    assert finished[0].failure.code == "rate_limited" and finished[1].failure is None
    assert not any(isinstance(e, ToolFailureDetectedEvent) for e in events)


def test_retryable_failure_is_recorded_on_the_last_attempt() -> None:
    events: list[Any] = []
    flaky = Flaky()
    out, attempts = _retry_loop(_node(flaky, {}), events)
    assert attempts == 3 and flaky.calls == 3
    assert out.failure.reason is ToolFailureReason.TOOL_REPORTED
    assert out.failure.attempts == 3
    assert out.text == "rate limited, try later [code: rate_limited]"
    assert sum(isinstance(e, ToolFailureDetectedEvent) for e in events) == 1


def test_no_retry_when_the_node_allows_one_attempt() -> None:
    node = _node(Flaky(), {}, retry=RetryPolicy(max_attempts=1))
    out = _run(node, _ctx())
    assert out.failure is not None and out.failure.failure.retryable


# --- building nodes ----------------------------------------------------------


def test_for_call_resolves_spec_names_and_lists_available() -> None:
    tools = [InventoryTool(), multiplication_tool]
    node = ToolCallNode.for_call(
        ToolCall(id="c", name="Inventory_Check", arguments='{"sku": "SKU-123"}'),
        tools,
        id="agent.it1.0",
        task_name="t",
        policies=(None, None, None),
    )
    assert node.tool is tools[0]
    assert node.available == ("Inventory_Check", "multiplication_tool")
    assert node.label == "Inventory_Check"
    missing = ToolCallNode.for_call(ToolCall(id="c", name="nope"), tools, id="x")
    assert missing.tool is None
    assert node.describe()["tool"] == "Inventory_Check"


# --- through the real scheduler ----------------------------------------------


def test_scheduler_retries_a_retryable_failure() -> None:
    testing = pytest.importorskip("crewgraph.testing", reason="crewgraph.testing.run_node not available yet")
    fast = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02, retry_on=(RetryableToolError,))
    flaky = Flaky(fail_times=2)
    result = testing.run_node(_node(flaky, {"x": 1}, retry=fast))
    assert result.output.text == "ok 1" and flaky.calls == 3


def test_scheduler_treats_raise_policy_as_fatal() -> None:
    testing = pytest.importorskip("crewgraph.testing", reason="crewgraph.testing.run_node not available yet")
    with pytest.raises(ToolExecutionFailedError):
        testing.run_node(_node(reporter, {"channel": "c"}, policies=("raise",)))


def test_handled_failure_is_described_in_the_node_info() -> None:
    from crewgraph.llm.types import ToolCall as _Call
    from crewgraph.nodes.tool_call import ToolCallNode as _Node
    from crewgraph.testing import run_node as _run

    node = _Node(id="t.it1.0.x", call=_Call(id="c1", name="nope", arguments="{}"), tool=None,
                 available=("Other",), task_name="t")
    result = _run(node)
    assert result.info["failed"] is True
    assert "nope" in result.info["error"]
