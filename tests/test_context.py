"""``crewgraph.context`` (CrewAI's ``crewai.context``): ``ExecutionContext`` snapshots of a real
run's state, taken where CrewAI users take them -- inside a tool, a model call, a flow method --
and reinstated in another thread."""

from __future__ import annotations

import pickle
import threading
from typing import Any

import pytest

from crewgraph import Agent, Crew, ExecutionContext, Task
from crewgraph.context import (
    apply_execution_context,
    capture_execution_context,
    get_current_task_id,
    get_platform_integration_token,
    platform_context,
    reset_current_task_id,
    set_current_task_id,
    set_platform_integration_token,
)
from crewgraph.events import TaskCompletedEvent, TaskStartedEvent, crewgraph_event_bus
from crewgraph.flow import Flow, listen, start
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


def test_outside_any_run_the_snapshot_has_crewais_defaults() -> None:
    snap = capture_execution_context()
    assert isinstance(snap, ExecutionContext)
    assert (snap.current_task_id, snap.flow_request_id, snap.flow_id) == (None, None, None)
    assert snap.flow_method_name == "unknown"
    assert snap.feedback_callback_info is None
    assert capture_execution_context({"channel": "slack"}).feedback_callback_info == {"channel": "slack"}


def test_current_task_id_inside_a_tool_and_a_model_call_of_a_crew_task() -> None:
    seen: dict[str, Any] = {}

    @tool("probe")
    def probe(q: str) -> str:
        """Look something up."""
        seen["tool"] = capture_execution_context()
        return "ok"

    def reply(_: Any) -> str:
        seen["llm"] = get_current_task_id()
        return "done"

    agent = Agent(role="r", goal="g", backstory="b", tools=[probe],
                  llm=FakeLLM([FakeToolCall("probe", {"q": "x"}), reply]))
    task = Task(description="d", expected_output="e", agent=agent)
    Crew(agents=[agent], tasks=[task]).kickoff()
    assert seen["tool"].current_task_id == str(task.id)
    assert seen["llm"] == str(task.id)
    assert get_current_task_id() is None  # reset after the run


def test_flow_method_snapshot_names_the_run_flow_and_method() -> None:
    snaps: list[ExecutionContext] = []

    class Snapshots(Flow):
        @start()
        def first(self) -> str:
            snaps.append(capture_execution_context())
            return "x"

        @listen(first)
        async def second(self, _: str) -> None:
            snaps.append(capture_execution_context())

    flow = Snapshots()
    flow.kickoff()
    assert [s.flow_method_name for s in snaps] == ["first", "second"]
    assert {s.flow_request_id for s in snaps} == {flow._run_id}
    assert {s.flow_id for s in snaps} == {str(flow.state["id"])}


def test_snapshot_round_trips_and_applies_in_another_thread() -> None:
    class OneMethod(Flow):
        @start()
        def only(self) -> ExecutionContext:
            with platform_context("tok-1"):
                return capture_execution_context()

    snap = OneMethod().kickoff()
    assert snap.platform_token == "tok-1"
    copy = pickle.loads(pickle.dumps(snap))
    assert copy == ExecutionContext.model_validate_json(snap.model_dump_json()) == snap
    got: list[ExecutionContext] = []

    def worker() -> None:
        apply_execution_context(copy)
        got.append(capture_execution_context())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    restored = got[0]
    assert (restored.flow_request_id, restored.flow_id, restored.flow_method_name, restored.platform_token) == (
        snap.flow_request_id, snap.flow_id, "only", "tok-1")
    assert capture_execution_context().flow_method_name == "unknown"  # this thread is untouched


def test_event_scopes_are_captured_and_reinstated() -> None:
    """A snapshot taken inside a task holds the task's open scope; events emitted where it is
    applied get that scope as parent, and the task's end closes it there."""
    with crewgraph_event_bus.scoped_handlers():
        started: list[TaskStartedEvent] = []
        completed: list[TaskCompletedEvent] = []
        crewgraph_event_bus.on(TaskStartedEvent)(lambda _s, e: started.append(e))
        crewgraph_event_bus.on(TaskCompletedEvent)(lambda _s, e: completed.append(e))
        base = capture_execution_context().event_id_stack  # scopes earlier code left open here
        crewgraph_event_bus.emit(None, TaskStartedEvent(task_name="t", agent_role="r"))
        inside = capture_execution_context()
        assert inside.event_id_stack == (*base, (started[0].event_id, "task_started"))
        assert inside.last_event_id == started[0].event_id
        assert inside.emission_sequence == started[0].emission_sequence

        after: list[ExecutionContext] = []

        def worker() -> None:
            apply_execution_context(inside)
            crewgraph_event_bus.emit(None, TaskCompletedEvent(task_name="t", agent_role="r"))
            after.append(capture_execution_context())

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join(10)
        crewgraph_event_bus.flush()
    assert completed[0].started_event_id == started[0].event_id
    assert after[0].event_id_stack == base


def test_platform_token_and_task_id_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWAI_PLATFORM_INTEGRATION_TOKEN", "from-env")
    assert get_platform_integration_token() == "from-env"
    with platform_context("scoped"):
        assert get_platform_integration_token() == "scoped"
    assert get_platform_integration_token() == "from-env"
    result: list[str | None] = []

    def worker() -> None:
        set_platform_integration_token("thread-only")
        result.append(get_platform_integration_token())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    assert result == ["thread-only"] and get_platform_integration_token() == "from-env"
    token = set_current_task_id("task-1")
    assert capture_execution_context().current_task_id == "task-1"
    reset_current_task_id(token)
    assert get_current_task_id() is None
