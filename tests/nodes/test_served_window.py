"""A small local server's window is known, not guessed, and its refusals are recovered.

Against the project's OpenAI-compatible server serving as ``llama-server -c N`` does
(``LlamaCpp``): the real openai SDK, the real client, the real agent step.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.llm import _served_window as served
from crewgraph.nodes._context_window import SUMMARY_PROMPT
from crewgraph.testing import LlamaCpp, OpenAICompatServer, ServerReply
from crewgraph.tools import tool

MODEL = "qwen2.5-coder-1.5b-instruct"  # the name table says 32,768 tokens for qwen2.5
BIG = "line of a listing that goes on and on\n" * 400  # ~15,000 characters, ~3,800 tokens


@tool("List files")
def list_files(path: str) -> str:
    """List the files under a path."""
    return f"{path}:\n{BIG}"


@pytest.fixture(autouse=True)
def _fresh_windows() -> Iterator[None]:
    served.forget_windows()
    yield
    served.forget_windows()


def _turns(body: dict[str, Any]) -> ServerReply:
    """Summaries get a summary; the agent calls the tool once, then answers."""
    messages = body.get("messages") or []
    if messages and messages[0].get("content") == SUMMARY_PROMPT:
        return ServerReply.text("The listing shows many lines of files.")
    if any(m.get("role") == "tool" for m in messages):
        return ServerReply.text("There are many files.")
    return ServerReply.tool_calls(("List files", {"path": "."}))


def _crew(server: OpenAICompatServer, **llm_kw: Any) -> tuple[Crew, LLM]:
    llm = LLM(model=MODEL, base_url=server.base_url, api_key="x", **llm_kw)
    agent = Agent(role="Cartographer", goal="map the code", backstory="careful", llm=llm, tools=[list_files])
    task = Task(description="List the files under . and say what you see", expected_output="a sentence",
                agent=agent)
    return Crew(agents=[agent], tasks=[task]), llm


def _refused(server: OpenAICompatServer) -> list[dict[str, Any]]:
    assert server.llama_cpp is not None
    return [b for b in server.chat_requests if server.llama_cpp.prompt_tokens(b) > server.llama_cpp.n_ctx]


def test_the_served_window_is_read_from_the_server_not_the_model_name() -> None:
    with OpenAICompatServer(default=_turns, llama_cpp=LlamaCpp(n_ctx=2048, n_ctx_train=32768)) as server:
        crew, llm = _crew(server)
        assert llm.get_context_window_size() == 32768  # before: only the name is known
        result = crew.kickoff()
        assert result.raw == "There are many files."
        assert llm.get_context_window_size() == 2048  # meta.n_ctx, not meta.n_ctx_train
        assert _refused(server) == []  # trimmed ahead of time: nothing was sent that it refuses


def test_props_gives_the_window_when_models_does_not() -> None:
    shape = LlamaCpp(n_ctx=2048, report_n_ctx=False)
    with OpenAICompatServer(default=_turns, llama_cpp=shape) as server:
        crew, llm = _crew(server)
        crew.kickoff()
        assert llm.get_context_window_size() == 2048
        assert _refused(server) == []


def test_a_llama_cpp_refusal_is_recovered_and_the_window_remembered() -> None:
    """With no metadata at all (an old server), the first long turn is refused with llama.cpp's
    exact 400; the step reads the window from it, shortens the conversation, sends it again,
    and later steps on that endpoint trim ahead of time."""
    shape = LlamaCpp(n_ctx=2048, report_n_ctx=False, serve_props=False)
    with OpenAICompatServer(default=_turns, llama_cpp=shape) as server:
        crew, llm = _crew(server)
        result = crew.kickoff()
        assert result.raw == "There are many files."
        refused = _refused(server)
        assert len(refused) == 1
        assert llm.get_context_window_size() == 2048
        record = next(r for r in result.graph.records() if r.kind == "agent_step")
        assert any("refused the conversation" in note and "2048" in note for note in record.info["notes"])
        again, _ = _crew(server)
        again.kickoff()
        assert len(_refused(server)) == 1  # the second crew trimmed ahead: no second refusal


@pytest.mark.parametrize(
    ("text", "window", "requested"),
    [
        ("request (12016 tokens) exceeds the available context size (8192 tokens), try increasing it",
         8192, 12016),
        ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens "
         "(4000 in the messages, 1000 in the completion).", 4096, 5000),
        ("This model's maximum context length is 128000 tokens. However, your messages resulted in "
         "130000 tokens. Please reduce the length of the messages.", 128000, 130000),
        ("the input length exceeds the context length", None, None),
    ],
)
def test_refusal_texts_of_each_server_are_read(text: str, window: int | None, requested: int | None) -> None:
    from crewgraph.nodes._context_window import is_context_overflow

    assert is_context_overflow(RuntimeError(text))
    assert served.window_from_refusal(text) == window
    assert served.requested_from_refusal(text) == requested


def test_hosted_providers_are_not_probed() -> None:
    llm = LLM(model="gpt-4o", api_key="x")
    assert not served.needs_probe(llm)
    assert served.served_window_of(llm) is None


def _writer(parts: list[str]) -> Any:
    """The writer's answer, given out ``max_tokens`` at a time by the server (LlamaCpp cuts it)."""
    whole = "".join(parts)

    def reply(body: dict[str, Any]) -> ServerReply:
        written = "".join(m.get("content") or "" for m in body["messages"] if m.get("role") == "assistant")
        return ServerReply.text(whole[len(written):])

    return reply


def test_an_answer_cut_at_max_tokens_is_continued_not_taken() -> None:
    briefing = "## Overview\n" + "a" * 300 + "\n## Modules\n" + "b" * 300 + "\n## Risks\n" + "c" * 100
    with OpenAICompatServer(default=_writer([briefing]), llama_cpp=LlamaCpp(n_ctx=8192)) as server:
        llm = LLM(model=MODEL, base_url=server.base_url, api_key="x", max_tokens=64)  # 256 characters
        writer = Agent(role="Writer", goal="write", backstory="terse", llm=llm)
        task = Task(description="Write the briefing", expected_output="three sections", agent=writer)
        result = Crew(agents=[writer], tasks=[task]).kickoff()
    assert result.raw == briefing
    assert len(server.chat_requests) == 3  # 256 + 256 + the rest
    assert server.chat_requests[1]["messages"][-1]["content"].startswith("Your answer was cut off")
    record = next(r for r in result.graph.records() if r.kind == "agent_step")
    assert record.info["continuations"] == 2


def test_an_answer_still_cut_after_the_bound_names_the_setting() -> None:
    from crewgraph.errors import CrewGraphError

    endless = "word " * 5000
    with OpenAICompatServer(default=_writer([endless]), llama_cpp=LlamaCpp(n_ctx=65536)) as server:
        llm = LLM(model=MODEL, base_url=server.base_url, api_key="x", max_tokens=16)
        writer = Agent(role="Writer", goal="write", backstory="terse", llm=llm)
        task = Task(description="Write the briefing", expected_output="three sections", agent=writer)
        with pytest.raises(CrewGraphError, match=r"still cut at the output token limit \(max_tokens=16\)"):
            Crew(agents=[writer], tasks=[task]).kickoff()
        assert len(server.chat_requests) == 4  # the answer and three continuations, not retried


def test_keepalive_comments_before_a_streamed_answer_are_ignored() -> None:
    shape = LlamaCpp(keepalive_comments=3, keepalive_delay=0.01)
    with OpenAICompatServer(["streamed answer"], llama_cpp=shape) as server:
        llm = LLM(model=MODEL, base_url=server.base_url, api_key="x", stream=True)
        assert llm.call("hi") == "streamed answer"


def test_a_server_named_by_openai_base_url_is_probed_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's way: OPENAI_BASE_URL, no base_url argument; two parallel steps share one probe
    (the second waits for it rather than sending a conversation sized on the name's guess)."""
    from crewgraph import Process

    with OpenAICompatServer(default=_turns, llama_cpp=LlamaCpp(n_ctx=2048)) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "x")
        llm = LLM(model=MODEL)
        agents = [Agent(role=f"Cartographer {i}", goal="map", backstory="careful", llm=llm, tools=[list_files])
                  for i in range(2)]
        tasks = [Task(description=f"List the files under . ({i})", expected_output="a sentence", agent=a)
                 for i, a in enumerate(agents)]
        Crew(agents=agents, tasks=tasks, process=Process.parallel).kickoff()
        assert llm.get_context_window_size() == 2048
        assert _refused(server) == []
