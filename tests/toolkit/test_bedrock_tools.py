"""Bedrock Agents and Knowledge Bases through boto3 against a local stand-in of bedrock-agent-runtime.

The stand-in speaks the documented REST API: ``POST /knowledgebases/{id}/retrieve``
(JSON) and ``POST /agents/{id}/agentAliases/{alias}/sessions/{session}/text``,
whose answer is an AWS event stream (binary frames with CRCs), encoded here.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.testing.fake_http import FakeRequestRecord
from crewgraph.toolkit import BedrockInvokeAgentTool, BedrockKBRetrieverTool
from crewgraph.tools import ToolFailure


@pytest.fixture(autouse=True)
def _boto3_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import boto3."""
    pytest.importorskip("boto3", reason="boto3 is not installed (pip install 'crewgraph[aws]')")


def _frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude (lengths + CRC), string headers, payload, message CRC."""
    encoded = b"".join(struct.pack("B", len(k)) + k.encode() + b"\x07" + struct.pack(">H", len(v)) + v.encode()
                       for k, v in headers.items())
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", zlib.crc32(prelude) & 0xFFFFFFFF)
    body = prelude + encoded + payload
    return body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def _chunk(text: str) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(text.encode()).decode()}).encode()
    return _frame({":event-type": "chunk", ":message-type": "event", ":content-type": "application/json"}, payload)


def _invoke(request: FakeRequestRecord) -> Any:
    if request.params["agent"] == "DENIED":
        return 403, {"message": "User is not authorized to invoke this agent"}, {"x-amzn-errortype": "AccessDeniedException"}
    question = request.json["inputText"].rsplit("\n", 2)[-2]
    stream = _chunk("Policy 7 covers ") + _chunk(f"{question!r}.")
    return 200, stream, {"content-type": "application/vnd.amazon.eventstream",
                         "x-amzn-bedrock-agent-sessionid": request.params["session"]}


def _retrieve(request: FakeRequestRecord) -> Any:
    if request.json["retrievalQuery"]["text"] == "nothing":
        return {"retrievalResults": []}
    return {
        "retrievalResults": [
            {"content": {"text": "Refunds take 14 days.", "type": "TEXT"},
             "location": {"type": "S3", "s3Location": {"uri": "s3://kb/refunds.md"}}, "score": 0.91,
             "metadata": {"team": "billing"}},
            {"content": {"text": "See the wiki."}, "location": {"webLocation": {"url": "https://wiki.test/x"}}},
        ],
        "nextToken": "page2",
    }


@pytest.fixture(scope="module")
def bedrock() -> Iterator[FakeHTTPService]:
    routes = {
        "POST /agents/{agent}/agentAliases/{alias}/sessions/{session}/text": _invoke,
        "POST /knowledgebases/{kb}/retrieve": _retrieve,
    }
    with FakeHTTPService(routes) as service:
        yield service


@pytest.fixture(autouse=True)
def _aws(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "eu-west-1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("BEDROCK_AGENT_ID", "BEDROCK_AGENT_ALIAS_ID", "BEDROCK_KB_ID", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)


def test_invoke_agent_joins_the_streamed_chunks(bedrock: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BEDROCK_AGENT_ID", "AGENT1")
    tool = BedrockInvokeAgentTool(agent_alias_id="ALIAS1", session_id="s-1", endpoint_url=bedrock.url)
    assert tool.run(query="water damage") == "Policy 7 covers 'water damage'."
    sent = bedrock.requests[-1]
    assert sent.path == "/agents/AGENT1/agentAliases/ALIAS1/sessions/s-1/text"
    assert "The current time is:" in sent.json["inputText"] and sent.json["enableTrace"] is False
    assert "eu-west-1" in sent.headers["authorization"]  # SigV4-signed for the configured region
    denied = BedrockInvokeAgentTool(agent_id="DENIED", agent_alias_id="A", endpoint_url=bedrock.url).run(query="x")
    assert isinstance(denied, ToolFailure) and denied.message == (
        "Error (AccessDeniedException): User is not authorized to invoke this agent")
    monkeypatch.delenv("BEDROCK_AGENT_ID")
    unset = BedrockInvokeAgentTool()
    assert unset.config_problems() == [
        "BedrockInvokeAgentTool needs agent_id: pass agent_id=... or set BEDROCK_AGENT_ID",
        "BedrockInvokeAgentTool needs agent_alias_id: pass agent_alias_id=... or set BEDROCK_AGENT_ALIAS_ID"]
    assert isinstance(unset.run(query="x"), ToolFailure)


def test_kb_retriever_returns_crewais_json(bedrock: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BEDROCK_KB_ID", "KB12345678")
    tool = BedrockKBRetrieverTool(number_of_results=2, endpoint_url=bedrock.url)
    assert "'KB12345678'" in tool.description
    answer = json.loads(tool.run(query="refund time"))
    assert answer == {
        "results": [
            {"content": "Refunds take 14 days.", "content_type": "TEXT", "source_type": "S3",
             "source_uri": "s3://kb/refunds.md", "score": 0.91, "metadata": {"team": "billing"}},
            {"content": "See the wiki.", "content_type": "text", "source_type": "Web", "source_uri": "https://wiki.test/x"},
        ],
        "nextToken": "page2",
    }
    sent = bedrock.requests[-1].json
    assert sent == {"retrievalQuery": {"text": "refund time"},
                    "retrievalConfiguration": {"vectorSearchConfiguration": {"numberOfResults": 2}}}
    assert json.loads(tool.run(query="nothing")) == {"message": "No results found for the given query."}
    bad = BedrockKBRetrieverTool(knowledge_base_id="not-valid-id!")
    assert bad.config_problems() == [
        "BedrockKBRetrieverTool: knowledge_base_id 'not-valid-id!' must be at most 10 letters or digits"]
