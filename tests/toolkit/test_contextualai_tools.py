"""The Contextual AI tools against a local stand-in speaking its /v1 REST API (datastores, agents, rerank, parse)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import (
    ContextualAICreateAgentTool,
    ContextualAIParseTool,
    ContextualAIQueryTool,
    ContextualAIRerankTool,
)
from crewgraph.tools import ToolFailure

STATE: dict[str, int] = {"doc_checks": 0, "parse_checks": 0}


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("authorization") != "Bearer ctx-key":
            return 401, {"message": "Invalid API key"}
        return reply(request) if callable(reply) else reply
    return handler


def _documents(request: FakeRequestRecord) -> Any:
    STATE["doc_checks"] += 1
    return {"documents": [{"id": "d1", "status": "processing" if STATE["doc_checks"] < 2 else "completed"}]}


def _parse_status(request: FakeRequestRecord) -> Any:
    STATE["parse_checks"] += 1
    return {"status": "processing" if STATE["parse_checks"] < 2 else "completed"}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "POST /v1/datastores": _auth({"id": "ds-1"}),
        "POST /v1/datastores/{id}/documents": _auth({"id": "doc-1"}),
        "GET /v1/datastores/{id}/documents": _auth(_documents),
        "POST /v1/agents": _auth({"id": "ag-1", "datastore_ids": ["ds-1"]}),
        "POST /v1/agents/{id}/query": _auth(lambda r: {"conversation_id": "c", "message": {
            "role": "assistant", "content": f"Answer to {r.json['messages'][0]['content']}"}, "retrieval_contents": []}),
        "POST /v1/rerank": _auth({"results": [{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.1}]}),
        "POST /v1/parse": _auth({"job_id": "job-1"}),
        "GET /v1/parse/jobs/job-1/status": _auth(_parse_status),
        "GET /v1/parse/jobs/job-1/results": _auth({"file_name": "a.pdf", "pages": [{"index": 0, "markdown": "# A"}]}),
    }) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("CONTEXTUAL_BASE_URL", api.url)


def test_create_agent_uploads_each_document(api: FakeHTTPService, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "b.txt").write_text("beta")
    tool = ContextualAICreateAgentTool(api_key="ctx-key")
    text = tool.run(agent_name="Docs", agent_description="Answers", datastore_name="store",
                    document_paths=[str(tmp_path / "a.txt"), str(tmp_path / "b.txt")])
    assert text == "Successfully created agent 'Docs' with ID: ag-1 and datastore ID: ds-1. Uploaded 2 documents."
    uploads = api.requests_to("/v1/datastores/ds-1/documents")
    assert len(uploads) == 2 and b'filename="b.txt"' in uploads[-1].body and b"beta" in uploads[-1].body
    assert api.requests_to("/v1/agents")[-1].json == {"name": "Docs", "description": "Answers", "datastore_ids": ["ds-1"]}
    missing = tool.run(agent_name="x", agent_description="x", datastore_name="x", document_paths=["/nope.txt"])
    assert isinstance(missing, ToolFailure) and missing.code == "file_not_found"


def test_query_waits_for_documents(api: FakeHTTPService) -> None:
    STATE["doc_checks"] = 0
    tool = ContextualAIQueryTool(api_key="ctx-key", poll_interval=0.01)
    assert tool.run(query="What is alpha?", agent_id="ag-1", datastore_id="ds-1") == "Answer to What is alpha?"
    assert STATE["doc_checks"] == 2
    assert api.requests_to("/v1/agents/ag-1/query")[-1].json == {
        "messages": [{"role": "user", "content": "What is alpha?"}], "stream": False}


def test_rerank_and_parse(api: FakeHTTPService, tmp_path: Path) -> None:
    ranked = json.loads(ContextualAIRerankTool(api_key="ctx-key").run(query="q", documents=["a", "b"], instruction="recent"))
    assert ranked["results"][0]["index"] == 1
    assert api.requests_to("/v1/rerank")[-1].json == {"query": "q", "documents": ["a", "b"],
                                                      "model": "ctxl-rerank-en-v1-instruct", "instruction": "recent"}
    bad = ContextualAIRerankTool(api_key="ctx-key").run(query="q", documents=["a"], metadata=["x", "y"])
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_metadata"
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4")
    STATE["parse_checks"] = 0
    parsed = json.loads(ContextualAIParseTool(api_key="ctx-key", poll_interval=0.01).run(
        file_path=str(tmp_path / "a.pdf"), page_range="0-1"))
    assert parsed["pages"][0]["markdown"] == "# A"
    upload = api.requests_to("/v1/parse")[-1].body
    assert b'name="raw_file"' in upload and b'name="page_range"' in upload and b"0-1" in upload
    assert api.requests_to("/v1/parse/jobs/job-1/results")[-1].query == {"output_types": ["markdown-per-page"]}


def test_key_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONTEXTUAL_API_KEY", raising=False)
    assert "api_key" in ContextualAIRerankTool().config_problems()[0]
    denied = ContextualAIRerankTool(api_key="bad").run(query="q", documents=["a"])
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
