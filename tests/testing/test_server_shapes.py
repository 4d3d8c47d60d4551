"""The test server's real-server shapes: tool calls written as text, forced tool calls answered
in text, and a slow single-slot model that keeps generating for a client that has gone."""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest

from crewgraph import LLM
from crewgraph.errors import LLMError
from crewgraph.llm.types import ToolSpec
from crewgraph.testing import OpenAICompatServer, ServerReply, SlowModel, written_tool_calls

ADD = ToolSpec(name="add", parameters={"type": "object", "properties": {"a": {"type": "integer"}}})


def llm_for(server: OpenAICompatServer, **kw: object) -> LLM:
    return LLM(model="m", base_url=server.base_url, api_key="k", retry_initial_delay=0.001, **kw)  # type: ignore[arg-type]


def test_tool_calls_come_back_written_in_the_content() -> None:
    with OpenAICompatServer([ServerReply.tool_calls(("add", {"a": 1})), ServerReply.tool_calls(("add", {"a": 2}))],
                            tool_calls_as_text="hermes") as server:
        llm = llm_for(server)
        with_tools = llm.call("add", tools=[ADD])
        without_tools = llm.call("add")  # no tools offered: the scripted call is sent natively
    assert with_tools.tool_calls == [] and with_tools.content == '<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call>'
    assert [c.name for c in without_tools.tool_calls] == ["add"]


def test_a_forced_tool_call_is_answered_in_text() -> None:
    body = {"tools": [ADD.to_openai()], "tool_choice": {"type": "function", "function": {"name": "add"}},
            "messages": [{"role": "user", "content": "x"}]}
    with OpenAICompatServer([ServerReply.structured({"a": 5})], tool_calls_as_text="prose") as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
        message = json.loads(conn.getresponse().read())["choices"][0]["message"]
    assert "tool_calls" not in message and '{"a": 5}' in message["content"]


def test_unknown_format_is_refused_up_front() -> None:
    with pytest.raises(ValueError, match="unknown text tool-call format 'xml'"):
        OpenAICompatServer(tool_calls_as_text="xml")
    assert written_tool_calls("functions", [("add", '{"a": 1}')], prose="Adding.") == 'Adding.\nfunctions.add:{"a": 1}'


def test_slow_single_slot_server_keeps_generating_after_the_client_gave_up() -> None:
    slow = SlowModel(seconds_per_token=0.05, slots=1)
    long_answer = "word " * 12  # 15 tokens: 0.75 s of generation
    with OpenAICompatServer([long_answer, "short"], slow_model=slow) as server:
        impatient = llm_for(server, timeout=0.2, max_retries=0)
        with pytest.raises(LLMError):
            impatient.call("write a lot")
        gave_up = time.monotonic()
        patient = llm_for(server, timeout=5)
        assert patient.call("again").content == "short"  # queued behind the abandoned generation
    first, second = slow.generations
    # Order, not wall-clock margins: the client gave up (its 0.2 s deadline) while the server was
    # still generating, and the server went on to the end (0.75 s of sleeping) for nobody.
    assert first.started < gave_up < first.ended
    assert first.abandoned and first.busy_seconds >= 0.7
    assert second.started >= first.ended  # the slot was busy until then
    assert not second.abandoned and slow.wasted_seconds == pytest.approx(first.busy_seconds)


def test_slow_server_stops_a_stream_the_client_closed() -> None:
    slow = SlowModel(seconds_per_token=0.05, slots=1)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "x"}]}
    with OpenAICompatServer(["token " * 40], slow_model=slow) as server:  # 60 tokens: 3 s if read to the end
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200 and response.fp is not None
        assert response.fp.readline().strip()  # the first chunk arrived
        response.close()  # hang up mid-stream
        conn.close()
        deadline = time.monotonic() + 5
        while not (slow.generations and slow.generations[0].ended) and time.monotonic() < deadline:
            time.sleep(0.02)
    (gen,) = slow.generations
    assert gen.stream and gen.stopped_early and gen.busy_seconds < 1.5


def test_requests_queue_for_the_slots() -> None:
    slow = SlowModel(seconds_per_token=0.02, slots=2)
    with OpenAICompatServer(default="four tokens long", slow_model=slow) as server:
        llm = llm_for(server)
        threads = [threading.Thread(target=llm.call, args=("hi",)) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    gens = sorted(slow.generations, key=lambda g: g.started)
    assert len(gens) == 3
    assert gens[2].started >= min(gens[0].ended, gens[1].ended) - 0.005  # the third waited for a slot
