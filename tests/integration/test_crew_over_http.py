"""A whole crew on the real openai SDK + instructor, against a local OpenAI-compatible server."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.testing import OpenAICompatServer, ServerReply
from crewgraph.tools import tool


class Verdict(BaseModel):
    answer: int
    confident: bool


@tool("Add")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def llm_for(server: OpenAICompatServer) -> LLM:
    return LLM(model="test-model", base_url=server.base_url, api_key="test-key",
               retry_initial_delay=0.01, retry_max_delay=0.05)


def test_tool_loop_structured_output_and_usage_over_http() -> None:
    replies = [
        ServerReply.tool_calls(("Add", {"a": 2, "b": 3}), ("Add", {"a": 10, "b": 20})),
        ServerReply.error(429, retry_after=0),
        ServerReply.text("The sums are 5 and 30, so the answer is 35."),
        ServerReply.structured({"answer": 35, "confident": True}),
    ]
    with OpenAICompatServer(replies) as server:
        agent = Agent(role="Calculator", goal="add numbers", backstory="precise", tools=[add], llm=llm_for(server))
        task = Task(description="Add 2+3 and 10+20, then sum them", expected_output="a number",
                    agent=agent, output_pydantic=Verdict)
        out = Crew(agents=[agent], tasks=[task]).kickoff()
        chats = server.chat_requests
    assert out.pydantic == Verdict(answer=35, confident=True)
    assert out.raw.startswith("The sums are 5 and 30")
    first = chats[0]
    assert first["model"] == "test-model"
    assert [t["function"]["name"] for t in first["tools"]] == ["Add"]
    assert first["messages"][0]["role"] == "system" and "Calculator" in first["messages"][0]["content"]
    tool_msgs = [m for m in chats[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_msgs] == ["5", "30"]
    assert len(chats) == 4  # 429 retried once by the client
    assert out.token_usage.successful_requests == 3
    assert out.token_usage.total_tokens > 0


def test_server_error_exhausting_retries_fails_with_clear_error() -> None:
    from crewgraph.errors import LLMError

    with OpenAICompatServer([ServerReply.error(401, "bad key")]) as server:
        agent = Agent(role="R", goal="g", llm=llm_for(server), max_retry_limit=0)
        crew = Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)])
        with pytest.raises(LLMError, match="401"):
            crew.kickoff()
