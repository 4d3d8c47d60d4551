"""``Flow.ask`` as CrewAI: its InputProvider protocol, flow_config, events, history, timeout."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from crewgraph.events.flow_events import FlowInputReceivedEvent, FlowInputRequestedEvent
from crewgraph.flow import (
    ConsoleProvider,
    Flow,
    InputProvider,
    InputResponse,
    flow_config,
    listen,
    start,
)
from crewgraph.flow.async_feedback.providers import ConsoleProvider as ProvidersConsole
from crewgraph.flow.input_provider import resolve_input_provider
from crewgraph.flow.persistence import SQLiteFlowPersistence


class MockInputProvider:
    """Written as CrewAI's docs write a provider: request_input(message, flow, metadata=None)."""

    def __init__(self, responses: list[str | None]) -> None:
        self.responses = responses
        self.messages: list[str] = []
        self.received_metadata: list[dict[str, Any] | None] = []

    def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> str | None:
        self.messages.append(message)
        self.received_metadata.append(metadata)
        return self.responses.pop(0) if self.responses else None


class SlowProvider:
    def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> str:
        time.sleep(2)
        return "too late"


class AsyncProvider:
    async def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> str:
        return f"async answer to {message}"


def test_a_structural_provider_answers_in_order_sync_and_async_methods() -> None:
    class F(Flow):
        input_provider = MockInputProvider(["AI", "detailed"])

        @start()
        def gather(self) -> dict[str, str | None]:
            return {"topic": self.ask("Topic?"), "depth": self.ask("Depth?")}

    assert F().kickoff() == {"topic": "AI", "depth": "detailed"}
    assert isinstance(MockInputProvider([]), InputProvider)

    class G(Flow):
        input_provider = MockInputProvider(["hello"])

        @start()
        async def greet(self) -> str | None:
            return self.ask("Say something:")

    assert G().kickoff() == "hello"


def test_an_async_provider_and_a_provider_without_metadata() -> None:
    class F(Flow):
        input_provider = AsyncProvider()

        @start()
        def one(self) -> str | None:
            return self.ask("Q?")

    assert F().kickoff() == "async answer to Q?"

    class NoMetadata:
        def request_input(self, message: str, flow: Flow[Any]) -> str:
            return "custom"

    class G(Flow):
        input_provider = NoMetadata()

        @start()
        def one(self) -> str | None:
            return self.ask("Q?", metadata={"ignored": True})

    assert G().kickoff() == "custom"


def test_timeout_returns_none_and_a_loop_ends_on_none(captured: Any) -> None:
    class F(Flow):
        input_provider = SlowProvider()

        @start()
        def wait(self) -> Any:
            begun = time.monotonic()
            answer = self.ask("Question?", timeout=0.1)
            return answer, time.monotonic() - begun

    flow = F()
    answer, waited = flow.kickoff()
    assert answer is None and waited < 1.5
    assert flow.input_history[0]["response"] is None
    [received] = captured.of(FlowInputReceivedEvent)
    assert received.response is None

    received_messages: list[str] = []

    class Chat(Flow):
        input_provider = MockInputProvider(["hello", "world", None])

        @start()
        def chat(self) -> int:
            while (msg := self.ask("You:")) is not None:
                received_messages.append(msg)
            return len(received_messages)

    assert Chat().kickoff() == 2 and received_messages == ["hello", "world"]


def test_provider_resolution_flow_then_flow_config_then_console() -> None:
    global_provider = MockInputProvider(["from config"])
    original = flow_config.input_provider
    try:
        flow_config.input_provider = global_provider

        class Plain(Flow):
            @start()
            def one(self) -> str | None:
                return self.ask("Q?")

        class Own(Flow):
            input_provider = MockInputProvider(["from flow"])

            @start()
            def one(self) -> str | None:
                return self.ask("Q?")

        assert Own().kickoff() == "from flow" and global_provider.messages == []
        assert Plain().kickoff() == "from config" and global_provider.messages == ["Q?"]
        flow_config.input_provider = None
        assert isinstance(resolve_input_provider(Plain()), ConsoleProvider)
        assert ConsoleProvider is ProvidersConsole and isinstance(ConsoleProvider(), InputProvider)
    finally:
        flow_config.input_provider = original


def test_events_history_and_metadata_both_ways(captured: Any) -> None:
    class MetadataProvider:
        def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> InputResponse:
            return InputResponse(text="the answer", metadata={"responded_by": "u456"})

    class F(Flow):
        input_provider = MetadataProvider()

        @start()
        def gather_info(self) -> str | None:
            return self.ask("What topic?", metadata={"user_id": "u123"})

    flow = F()
    before = datetime.now()
    assert flow.kickoff() == "the answer"
    [requested] = captured.of(FlowInputRequestedEvent)
    [received] = captured.of(FlowInputReceivedEvent)
    assert requested.type == "flow_input_requested" and requested.message == "What topic?"
    assert requested.metadata == {"user_id": "u123"} and requested.method_name == "gather_info"
    assert received.type == "flow_input_received" and received.response == "the answer"
    assert received.response_metadata == {"responded_by": "u456"}
    assert received.run_id == flow.run_id
    [entry] = flow.input_history
    assert entry["message"] == "What topic?" and entry["method_name"] == "gather_info"
    assert entry["metadata"] == {"user_id": "u123"} and entry["response_metadata"] == {"responded_by": "u456"}
    assert before <= entry["timestamp"] <= datetime.now()
    assert flow._input_history == flow.input_history  # CrewAI's attribute name


def test_a_failing_provider_gives_none_and_text_none_is_none() -> None:
    class Failing:
        def request_input(self, message: str, flow: Flow[Any]) -> str:
            raise RuntimeError("provider failed")

    class F(Flow):
        input_provider = Failing()

        @start()
        def one(self) -> str | None:
            return self.ask("Q?")

    assert F().kickoff() is None

    class Declined:
        def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> InputResponse:
            return InputResponse(text=None, metadata={"reason": "user_declined"})

    class G(Flow):
        input_provider = Declined()

        @start()
        def one(self) -> str | None:
            return self.ask("Q?")

    flow = G()
    assert flow.kickoff() is None
    assert flow.input_history[0]["response_metadata"] == {"reason": "user_declined"}


def test_the_state_is_saved_before_waiting(tmp_path: Path) -> None:
    store = SQLiteFlowPersistence(tmp_path / "flows.db")
    seen: list[Any] = []

    class Peek:
        def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> str:
            seen.append(store.load_state(flow.flow_id))
            return "detailed"

    class F(Flow):
        input_provider = Peek()

        @start()
        def gather(self) -> str | None:
            self.state["topic"] = "AI"
            return self.ask("Depth?")

    flow = F(persistence=store)
    assert flow.kickoff() == "detailed"
    assert seen[0]["topic"] == "AI"  # saved before the provider was asked


def test_console_provider_plain_and_end_of_input(monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[str] = []

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        return "  spaced answer  "

    monkeypatch.setattr("builtins.input", fake_input)
    assert ConsoleProvider(verbose=False).request_input("Q?", None) == "spaced answer"  # type: ignore[arg-type]
    assert prompts == ["Q? "]

    def closed(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", closed)
    assert ConsoleProvider().request_input("Q?", None) is None  # type: ignore[arg-type]


def test_old_shapes_work_and_wrong_ones_are_named() -> None:
    class F(Flow):
        input_provider = staticmethod(lambda q: f"fn: {q}")

        @start()
        def one(self) -> str | None:
            return self.ask("Q?")

    assert F().kickoff() == "fn: Q?"

    class G(Flow):
        input_provider = 42

        @start()
        def one(self) -> str | None:
            return self.ask("Q?")

    with pytest.raises(TypeError, match=r"request_input\(message, flow, metadata=None\)"):
        G().kickoff()


def test_ask_in_parallel_listeners_keeps_each_ones_metadata() -> None:
    class Tracking:
        def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> InputResponse:
            time.sleep(0.05)
            user = (metadata or {}).get("user", "unknown")
            return InputResponse(text=f"answer from {user}", metadata={"responded_by": user})

    class F(Flow):
        input_provider = Tracking()

        @start()
        def trigger(self) -> str:
            return "go"

        @listen(trigger)
        def listener_a(self) -> str | None:
            return self.ask("A?", metadata={"user": "alice"})

        @listen(trigger)
        def listener_b(self) -> str | None:
            return self.ask("B?", metadata={"user": "bob"})

    flow = F()
    flow.kickoff()
    by_user = {e["metadata"]["user"]: e for e in flow.input_history}
    assert by_user["alice"]["response"] == "answer from alice"
    assert by_user["bob"]["response_metadata"] == {"responded_by": "bob"}
