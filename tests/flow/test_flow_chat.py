"""crewgraph.flow.chat (CrewAI's crewai.flow.chat): ChatSession, TurnResult and the ChatMessage wire format."""

from __future__ import annotations

from typing import Any

import pytest

from crewgraph import Agent, Crew, Flow, Task
from crewgraph.experimental.conversational import (
    ConversationConfig,
    ConversationState,
    RouterConfig,
)
from crewgraph.flow import listen, start
from crewgraph.flow.chat import ChatMessage, ChatSession, TurnResult
from crewgraph.testing import FakeLLM

REPLY = "Your order ships tomorrow from Oslo."


def make_support(router_llm: Any) -> type[Flow[Any]]:
    @ConversationConfig(system_prompt="A support assistant.", llm=router_llm, router=RouterConfig())
    class SupportFlow(Flow[ConversationState]):
        @listen("ORDER_STATUS")
        def handle_order(self) -> str:
            """Questions about where an order is."""
            agent = Agent(role="Support", goal="Answer", backstory="Helpful", llm=FakeLLM([REPLY]))
            crew = Crew(agents=[agent], tasks=[Task(description="Answer", expected_output="a reply", agent=agent)],
                        stream=True)
            streaming = crew.kickoff()
            for _ in streaming:
                pass
            return streaming.result.raw

    return SupportFlow


def test_turns_are_told_as_chat_messages() -> None:
    seen: list[ChatMessage] = []
    flow = make_support(FakeLLM(['{"intent": "converse"}', "Hello! I can help.", '{"intent": "ORDER_STATUS"}']))()
    session = ChatSession(flow, "session-1", on_event=seen.append)

    first = session.handle_turn("What can you do?")
    assert isinstance(first, TurnResult) and first.output == "Hello! I can help." and first.intent == "converse"
    assert [m["role"] for m in first.messages] == ["user", "assistant"]
    assert [m.type for m in seen] == ["turn_started", "assistant_done", "turn_finished"]

    seen.clear()
    second = session.handle_turn("Where is my order?", stream=True)
    assert second.output == REPLY and second.intent == "ORDER_STATUS" and second.streaming is not None
    kinds = [m.type for m in seen]
    assert kinds[0] == "turn_started" and kinds[-2:] == ["assistant_done", "turn_finished"]
    deltas = [m.payload["chunk"] for m in seen if m.type == "assistant_delta"]
    assert "".join(deltas) == REPLY
    assert all(m.session_id == "session-1" and m.version == "1" for m in seen)
    own = [m.seq for m in seen if m.type != "assistant_delta"]
    assert own == sorted(own)
    session.close()


def test_iter_turn_stream_and_errors() -> None:
    flow = make_support(FakeLLM(['{"intent": "ORDER_STATUS"}']))()
    messages = list(ChatSession(flow).iter_turn_stream("Where is it?"))
    assert messages[0].type == "turn_started" and messages[-1].type == "turn_finished"
    assert "".join(m.payload["chunk"] for m in messages if m.type == "assistant_delta") == REPLY

    class Plain(Flow):
        @start()
        def go(self) -> str:
            return "x"

    with pytest.raises(ValueError, match="conversational"):
        ChatSession(Plain())
