"""Record/replay: equality, diffs on mismatch, exhaustion, errors, cassettes, the real LLM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph.errors import LLMError, ReplayMismatchError
from crewgraph.llm import RecordingLLM, ReplayLLM, ToolSpec, cassette
from crewgraph.testing import FakeLLM, FakeToolCall, OpenAICompatServer, ServerReply

TOOL = ToolSpec(name="add", parameters={"type": "object", "properties": {"a": {"type": "integer"}}})


class Answer(BaseModel):
    value: int


def _conversation(llm: Any) -> list[Any]:
    return [
        llm.call("hello"),
        llm.call([{"role": "user", "content": "add"}], tools=[TOOL]),
        llm.call("number?", response_model=Answer),
    ]


def test_record_then_replay_is_identical(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    inner = FakeLLM(["hi!", FakeToolCall("add", {"a": 1}), Answer(value=42)], model="fake-x")
    recorded = _conversation(RecordingLLM(inner, path))
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    first = json.loads(lines[0])
    assert first["request"]["messages"] == [{"role": "user", "content": "hello"}]
    assert json.loads(lines[1])["request"]["tools"] == [{"name": "add", "parameters": TOOL.parameters}]
    third = json.loads(lines[2])
    assert third["request"]["response_model"]["name"] == "Answer"
    assert third["response"]["parsed"] == {"value": 42}

    replay = ReplayLLM(path)
    assert replay.model == "fake-x"
    replayed = _conversation(replay)
    for before, after in zip(recorded, replayed, strict=True):
        assert after.content == before.content
        assert after.tool_calls == before.tool_calls
        assert after.usage == before.usage
    assert isinstance(replayed[2].parsed, Answer) and replayed[2].parsed.value == 42
    assert replay.remaining == 0


def test_mismatch_shows_a_unified_diff(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    RecordingLLM(FakeLLM(["ok"]), path).call("Summarise the report in 3 bullets")
    with pytest.raises(ReplayMismatchError) as info:
        ReplayLLM(path).call("Summarise the report in 5 bullets")
    message = str(info.value)
    assert "--- recorded (call #1)" in message and "+++ requested" in message
    assert '-      "content": "Summarise the report in 3 bullets"' in message
    assert '+      "content": "Summarise the report in 5 bullets"' in message


def test_running_out_of_recordings(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    RecordingLLM(FakeLLM(["one"]), path).call("q")
    replay = ReplayLLM(path)
    replay.call("q")
    with pytest.raises(ReplayMismatchError, match=r"no exchange left.*one more LLM call"):
        replay.call("q2")


def test_non_strict_replay_matches_out_of_order(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    recorder = RecordingLLM(FakeLLM(["A", "B"]), path)
    recorder.call("a")
    recorder.call("b")
    replay = ReplayLLM(path, strict=False)
    assert replay.call("b").content == "B"
    assert replay.call("a").content == "A"


def test_errors_are_recorded_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    recorder = RecordingLLM(FakeLLM([LLMError("HTTP 500: down", status_code=500)]), path)
    with pytest.raises(LLMError):
        recorder.call("q")
    with pytest.raises(LLMError, match="down") as info:
        ReplayLLM(path).call("q")
    assert info.value.status_code == 500


def test_callables_in_kwargs_are_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    RecordingLLM(FakeLLM(["x"]), path).call("q", emit=print, temperature=0.1)
    record = json.loads(path.read_text())
    assert record["request"]["params"] == {"temperature": 0.1}
    assert ReplayLLM(path).call("q", emit=len, temperature=0.1).content == "x"


def test_cassette_records_then_replays(tmp_path: Path) -> None:
    path = tmp_path / "cassettes" / "flow.jsonl"
    first = cassette(path, FakeLLM(["recorded answer"]))
    assert isinstance(first, RecordingLLM)
    first.call("q")
    second = cassette(path)  # no llm needed once recorded
    assert isinstance(second, ReplayLLM)
    assert second.call("q").content == "recorded answer"
    again = cassette(path, FakeLLM(["new"]), mode="record")
    assert isinstance(again, RecordingLLM) and not path.exists()
    with pytest.raises(ValueError, match="nothing to replay"):
        cassette(tmp_path / "missing.jsonl")
    with pytest.raises(FileNotFoundError):
        cassette(tmp_path / "missing.jsonl", mode="replay")


def test_recording_the_real_llm(tmp_path: Path, make_llm: Any, server: OpenAICompatServer) -> None:
    server.add("live", ServerReply.structured({"value": 7}))
    path = tmp_path / "live.jsonl"
    recorder = cassette(path, make_llm())
    recorder.call("q")
    recorder.call("n?", response_model=Answer)
    replay = cassette(path)
    assert replay.call("q").content == "live"
    parsed = replay.call("n?", response_model=Answer).parsed
    assert isinstance(parsed, Answer) and parsed.value == 7
    assert len(server.chat_requests) == 2  # replay never reached the server
