"""The event bus on its own: sync and async handlers, subclass delivery, isolation of
failing handlers, removal and scoping, BaseEventListener, and a quiet non-verbose crew."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events import (
    BaseEventListener,
    GuardrailCompletedEvent,
    GuardrailStartedEvent,
    TaskCompletedEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
)
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.event_bus import crewgraph_event_bus
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


class Parent(BaseEvent):
    value: int = 0


class Child(Parent):
    pass


def test_sync_handlers_run_inline_and_receive_subclasses() -> None:
    bus = CrewGraphEventsBus()
    seen: list[tuple[str, Any, int]] = []
    bus.on(Parent)(lambda source, event: seen.append(("parent", source, event.value)))
    bus.on(Child)(lambda source, event: seen.append(("child", source, event.value)))
    bus.emit("src", Child(value=1))
    bus.emit("src", Parent(value=2))
    assert seen == [("child", "src", 1), ("parent", "src", 1), ("parent", "src", 2)]


def test_async_handler_without_a_running_loop_runs_on_the_background_loop() -> None:
    bus = CrewGraphEventsBus()
    seen: list[int] = []

    @bus.on(Parent)
    async def handler(source: Any, event: Parent) -> None:
        await asyncio.sleep(0)
        seen.append(event.value)

    bus.emit(None, Parent(value=7))
    bus.flush()
    assert seen == [7]


def test_async_handler_inside_a_running_loop_runs_on_that_loop() -> None:
    bus = CrewGraphEventsBus()
    loops: list[asyncio.AbstractEventLoop] = []

    @bus.on(Parent)
    async def handler(source: Any, event: Parent) -> None:
        loops.append(asyncio.get_running_loop())

    async def main() -> asyncio.AbstractEventLoop:
        bus.emit(None, Parent())
        await asyncio.sleep(0.01)
        return asyncio.get_running_loop()

    assert loops == [asyncio.run(main())]


def test_a_failing_handler_is_logged_and_never_stops_the_others(caplog: pytest.LogCaptureFixture) -> None:
    bus = CrewGraphEventsBus()
    seen: list[int] = []

    def broken(source: Any, event: Parent) -> None:
        raise RuntimeError("listener bug")

    bus.on(Parent)(broken)
    bus.on(Parent)(lambda source, event: seen.append(event.value))
    with caplog.at_level(logging.ERROR, logger="crewgraph.events"):
        bus.emit(None, Parent(value=3))
    assert seen == [3]
    assert "listener bug" in caplog.text


def test_off_and_scoped_handlers() -> None:
    bus = CrewGraphEventsBus()
    seen: list[str] = []

    def handler(source: Any, event: Parent) -> None:
        seen.append("outer")

    bus.on(Parent)(handler)
    with bus.scoped_handlers():
        assert not bus.has_handlers(Parent)
        bus.on(Parent)(lambda source, event: seen.append("inner"))
        bus.emit(None, Parent())
    bus.emit(None, Parent())
    bus.off(Parent, handler)
    bus.emit(None, Parent())
    assert seen == ["inner", "outer"]
    with pytest.raises(TypeError, match="BaseEvent subclass"):
        bus.on(dict)(handler)  # type: ignore[type-var]


def test_base_event_listener_registers_its_handlers_on_the_global_bus() -> None:
    seen: list[str] = []

    class Collector(BaseEventListener):
        def setup_listeners(self, crewgraph_event_bus: CrewGraphEventsBus) -> None:
            @crewgraph_event_bus.on(TaskCompletedEvent)
            def on_task(source: Any, event: TaskCompletedEvent) -> None:
                seen.append(event.output.raw)  # CrewAI's TaskOutput

            @crewgraph_event_bus.on(ToolUsageStartedEvent)
            def on_tool(source: Any, event: ToolUsageStartedEvent) -> None:
                seen.append(f"tool:{event.tool_name}")

    @tool("echo")
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    with crewgraph_event_bus.scoped_handlers():
        Collector()
        agent = Agent(role="R", goal="G", tools=[echo], llm=FakeLLM([FakeToolCall("echo", {"text": "hi"}), "done"]))
        Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)]).kickoff()
    assert seen == ["tool:echo", "done"]


def test_tool_and_guardrail_events_carry_what_happened() -> None:
    @tool("echo")
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    events: list[BaseEvent] = []
    with crewgraph_event_bus.scoped_handlers():
        for kind in (ToolUsageFinishedEvent, GuardrailStartedEvent, GuardrailCompletedEvent):
            crewgraph_event_bus.on(kind)(lambda source, event: events.append(event))
        llm = FakeLLM([FakeToolCall("echo", {"text": "hi"}), FakeToolCall("missing", {}), "x", "longer"])
        agent = Agent(role="R", goal="G", tools=[echo], llm=llm)
        task = Task(description="d", expected_output="e", agent=agent,
                    guardrail=lambda out: (len(out.raw) > 1, out.raw if len(out.raw) > 1 else "too short"))
        Crew(agents=[agent], tasks=[task]).kickoff()
    finished = [e for e in events if isinstance(e, ToolUsageFinishedEvent)]
    assert [(e.tool_name, e.output, e.failure is None) for e in finished] == [("echo", "hi", True), ("missing", finished[1].output, False)]
    guard = [(type(e).__name__, getattr(e, "success", None), e.retry_count) for e in events
             if isinstance(e, GuardrailStartedEvent | GuardrailCompletedEvent)]
    assert guard == [("LLMGuardrailStartedEvent", None, 0), ("LLMGuardrailCompletedEvent", False, 0),
                     ("LLMGuardrailStartedEvent", None, 1), ("LLMGuardrailCompletedEvent", True, 1)]
    assert all(e.run_id for e in events)


def test_a_quiet_crew_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    agent = Agent(role="R", goal="G", llm=FakeLLM(["done"]))
    Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)], verbose=False).kickoff()
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
