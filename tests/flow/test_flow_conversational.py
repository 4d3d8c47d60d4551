"""Conversational flows as CrewAI's: handle_turn/chat/stream_turn, routing, state across turns and processes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from _forkserver import run_python

from crewgraph import Flow
from crewgraph.experimental.conversational import (
    ConversationConfig,
    ConversationState,
    RouterConfig,
)
from crewgraph.flow import (
    ChatState,
    ConversationalConfig,
    ConversationalInputs,
    listen,
    router,
    start,
)
from crewgraph.flow.persistence import SQLiteFlowPersistence
from crewgraph.testing import FakeLLM

REPO = Path(__file__).resolve().parents[2]
APP = Path(__file__).parent / "apps" / "support_chat_app.py"


def make_support(llm: Any) -> type[Flow[Any]]:
    @ConversationConfig(system_prompt="A support assistant.", llm=llm, router=RouterConfig())
    class SupportFlow(Flow[ConversationState]):
        @listen("ORDER_STATUS")
        def handle_order(self) -> str:
            """Questions about where an order is."""
            return "Your order ships tomorrow."

    return SupportFlow


def test_turns_route_reply_and_keep_the_history() -> None:
    llm = FakeLLM(['{"intent": "converse"}', "Hello! I can help.", '{"intent": "ORDER_STATUS"}', '{"intent": "end"}'])
    flow = make_support(llm)()
    runs = []
    assert flow.handle_turn("What can you do?") == "Hello! I can help."
    runs.append(flow.run_id)
    assert flow.handle_turn("Where is my order?") == "Your order ships tomorrow."
    runs.append(flow.run_id)
    assert flow.handle_turn("bye") == "Conversation ended."
    runs.append(flow.run_id)
    assert len(set(runs)) == 3  # each turn is its own run of the graph
    assert [(m.role, m.content) for m in flow.state.messages] == [
        ("user", "What can you do?"), ("assistant", "Hello! I can help."),
        ("user", "Where is my order?"), ("assistant", "Your order ships tomorrow."),
        ("user", "bye"), ("assistant", "Conversation ended."),
    ]
    assert flow.state.ended and flow.state.last_intent == "end"
    router_prompt = llm.calls[0].messages[0]["content"]
    assert "- ORDER_STATUS: Questions about where an order is." in router_prompt
    assert "- converse:" in router_prompt and "- end:" in router_prompt
    converse = llm.calls[1].messages
    assert converse[0] == {"role": "system", "content": "A support assistant."}
    assert converse[-1] == {"role": "user", "content": "What can you do?"}
    # the executed graph of the last turn: the start router, then the end handler
    assert {n for n in flow.run_graph.digraph.nodes} >= {"route_conversation", "end_conversation"}


def test_an_invalid_route_falls_back_and_a_failed_router_uses_the_default() -> None:
    llm = FakeLLM(['{"intent": "NOT_A_ROUTE"}', "fallback reply"])
    flow = make_support(llm)()
    assert flow.handle_turn("hm") == "fallback reply" and flow.state.last_intent == "converse"


def test_route_turn_override_and_a_returned_reply_is_appended() -> None:
    class Gate(Flow[ConversationState]):
        conversational = True

        def route_turn(self, context: dict[str, Any]) -> str | None:
            return "SECRET" if "password" in context["current_user_message"] else None

        @listen("SECRET")
        def refuse(self) -> str:
            return "I cannot help with passwords."

    flow = Gate()
    assert flow.handle_turn("my password?") == "I cannot help with passwords."
    assert flow.state.messages[-1].content == "I cannot help with passwords."  # appended by handle_turn
    # no LLM configured: the built-in converse route says so
    assert flow.handle_turn("hello") == "I can continue the conversation once an LLM is configured."


def test_default_intents_classify_the_message_and_agent_results_stay_private() -> None:
    llm = FakeLLM(['{"outcome": "billing"}'])

    @ConversationConfig(default_intents=["billing", "tech"], intent_llm=llm)
    class Desk(Flow[ConversationState]):
        @listen("billing")
        def handle_billing(self) -> str:
            self.append_agent_result("ledger", "balance 0", visibility="private")
            return "Billing here."

    flow = Desk()
    assert flow.handle_turn("I was charged twice") == "Billing here."
    assert flow.state.last_intent == "billing"
    assert flow.state.agent_threads["ledger"][0].content == "balance 0"
    assert [m.content for m in flow.state.messages] == ["I was charged twice", "Billing here."]


def test_not_conversational_is_a_clear_error() -> None:
    class Plain(Flow[dict[str, Any]]):
        @start()
        def a(self) -> str:
            return "a"

    for call in (lambda f: f.handle_turn("x"), lambda f: f.chat(), lambda f: f.stream_turn("x")):
        with pytest.raises(ValueError, match=r"only available on conversational flows"):
            call(Plain())


def test_chat_loop_with_injected_io() -> None:
    llm = FakeLLM(['{"intent": "converse"}', "Hi!", '{"intent": "ORDER_STATUS"}'])
    lines = iter(["hello", "", "where is it", "quit", "never read"])
    printed: list[str] = []
    make_support(llm)().chat(input_fn=lambda prompt: next(lines), output_fn=printed.append)
    assert printed == ["\nAssistant: Hi!", "\nAssistant: Your order ships tomorrow."]


def test_stream_turn_yields_the_turns_events_then_the_result() -> None:
    llm = FakeLLM(['{"intent": "ORDER_STATUS"}'])
    stream = make_support(llm)().stream_turn("where?")
    kinds = [type(e).__name__ for e in stream]
    assert kinds[0] == "ConversationTurnStartedEvent" and kinds[-1] == "ConversationTurnCompletedEvent"
    assert kinds.index("FlowStartedEvent") < kinds.index("MethodExecutionFinishedEvent") < kinds.index("FlowFinishedEvent")
    assert stream.result == "Your order ships tomorrow."


def test_chat_state_flow_with_append_and_receive_message() -> None:
    class Support(Flow[ChatState]):
        conversational_config = ConversationalConfig(default_intents=["order", "help"])

        @start()
        def bootstrap(self) -> str:
            self.receive_user_message(self.state.last_user_message or "hi")
            self.state.session_ready = True
            return "ready"

        @router(bootstrap)
        def route(self) -> str:
            return self.state.last_intent or "help"

        @listen("help")
        def handle_help(self) -> str:
            self.append_message("assistant", "How can I help?")
            return "How can I help?"

    flow = Support()
    assert flow.kickoff() == "How can I help?"
    assert flow.state.messages == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "How can I help?"}]
    assert flow.conversation_messages[-1] == {"role": "assistant", "content": "How can I help?"}
    assert ConversationalInputs(id="s", user_message="hi") == {"id": "s", "user_message": "hi"}
    assert list(ConversationalConfig().exit_commands) == ["exit", "quit"]


def test_a_session_continues_in_another_process(tmp_path: Path) -> None:
    """Turn 1 in one process, turn 2 in another: the second sees the first's history."""
    db = tmp_path / "chat.db"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{APP.parent}", "CREWGRAPH_STORAGE_DIR": str(tmp_path)}

    def turn(script: list[str], message: str) -> dict[str, Any]:
        proc = run_python([str(APP), str(db), "sess-1", json.dumps(script), message], env=env, timeout=90)
        assert proc.returncode == 0, proc.stderr
        assert "no saved state" not in proc.stderr  # opening a session is not a warning
        return dict(json.loads(proc.stdout.strip().splitlines()[-1]))

    first = turn(['{"intent": "converse"}', "Hi there."], "hello")
    second = turn(['{"intent": "ORDER_STATUS"}'], "where is my order")
    assert first["out"] == "Hi there." and second["out"] == "Order update after 3 messages."
    assert second["messages"] == ["hello", "Hi there.", "where is my order", "Order update after 3 messages."]
    assert second["router_saw"]["last_intent"] == "converse"
    assert [m["content"] for m in second["router_saw"]["message_history"]] == ["hello", "Hi there.", "where is my order"]
    assert first["run"] != second["run"]
    store = SQLiteFlowPersistence(db)
    assert store.load_run(first["run"])["status"] == store.load_run(second["run"])["status"] == "completed"
    assert store.load_state("sess-1")["messages"][-1]["content"] == "Order update after 3 messages."


def test_turn_events_in_order(captured: Any) -> None:
    from crewgraph.events import (
        ConversationMessageAddedEvent,
        ConversationRouteSelectedEvent,
        ConversationTurnCompletedEvent,
        ConversationTurnStartedEvent,
    )

    flow = make_support(FakeLLM(['{"intent": "ORDER_STATUS"}']))()
    flow.handle_turn("where?", session_id="s-9")
    kinds = {ConversationTurnStartedEvent, ConversationMessageAddedEvent, ConversationRouteSelectedEvent,
             ConversationTurnCompletedEvent}
    mine = [e for e in captured.events if type(e) in kinds]
    assert [e.type for e in mine] == ["conversation_turn_started", "conversation_message_added",
                                      "conversation_route_selected", "conversation_message_added",
                                      "conversation_turn_completed"]
    assert {e.session_id for e in mine} == {"s-9"}
    assert mine[2].route == "ORDER_STATUS" and mine[2].user_message == "where?"
    assert mine[3].role == "assistant" and mine[3].content == "Your order ships tomorrow."
    assert mine[2].run_id == flow.run_id


def test_a_declared_conversational_flow(tmp_path: Path) -> None:
    path = tmp_path / "chat.yaml"
    path.write_text(
        "schema: crewai.flow/v1\n"
        "name: DeclaredChat\n"
        "state: {type: dict, default: {team: support}}\n"
        "conversational: {system_prompt: '', router: {routes: [REFUND]}}\n"
        "methods:\n"
        "  refund:\n"
        "    description: Refund requests.\n"
        "    listen: REFUND\n"
        "    do: {call: expression, expr: \"'refund for ' + state.team + ' after ' + string(size(state.messages))\"}\n",
        encoding="utf-8",
    )
    flow = Flow.from_declaration(path=path)
    assert type(flow).conversational and flow.state.team == "support"
    # no LLM in the document: the router takes its default intent, converse, which says so
    assert flow.handle_turn("hello") == "I can continue the conversation once an LLM is configured."

    class Routed(type(flow)):  # type: ignore[misc]
        def route_turn(self, context: dict[str, Any]) -> str | None:
            return "REFUND"

    again = Routed()
    assert again.handle_turn("money back") == "refund for support after 1"
    assert again.state.messages[-1].content == "refund for support after 1"
