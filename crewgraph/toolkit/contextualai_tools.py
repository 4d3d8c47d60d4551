"""The Contextual AI tools: build a RAG agent from documents, query it, rerank documents, parse files.

All on Contextual AI's REST API (``{base}/v1``, ``Authorization: Bearer``,
the key from ``api_key=`` as in CrewAI, or ``CONTEXTUAL_API_KEY``), as it
documents (its ``contextual-client`` SDK sends the same; it is not needed):

* create agent: ``POST /datastores``, ``POST /datastores/{id}/documents``
  (one multipart upload per file), ``POST /agents`` with the datastore;
* query: ``POST /agents/{agent_id}/query`` with the user message (given a
  ``datastore_id``, it first waits, bounded, until no document is still
  being processed) and answers the reply message's content;
* rerank: ``POST /rerank`` with ``{query, documents, model, instruction,
  metadata}``, answered as indented JSON;
* parse: ``POST /parse`` (multipart ``raw_file`` plus the options), polls
  ``GET /parse/jobs/{id}/status`` until ``completed``, then answers
  ``GET /parse/jobs/{id}/results?output_types=...`` as indented JSON.

``base_url=`` or ``CONTEXTUAL_BASE_URL`` moves the API (default
``https://api.contextual.ai``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "ContextualAICreateAgentTool",
    "ContextualAIParseTool",
    "ContextualAIQueryTool",
    "ContextualAIRerankTool",
]


class ContextualAICreateAgentSchema(BaseModel):
    """Input for ContextualAICreateAgentTool."""

    agent_name: str = Field(..., description="Name for the new agent")
    agent_description: str = Field(..., description="Description for the new agent")
    datastore_name: str = Field(..., description="Name for the new datastore")
    document_paths: list[str] = Field(..., description="List of file paths to upload")


class ContextualAIQuerySchema(BaseModel):
    """Input for ContextualAIQueryTool."""

    query: str = Field(..., description="Query to send to the Contextual AI agent.")
    agent_id: str = Field(..., description="ID of the Contextual AI agent to query")
    datastore_id: str | None = Field(None, description="Optional datastore ID for document readiness verification")


class ContextualAIRerankSchema(BaseModel):
    """Input for ContextualAIRerankTool."""

    query: str = Field(..., description="The search query to rerank documents against")
    documents: list[str] = Field(..., description="List of document texts to rerank")
    instruction: str | None = Field(default=None, description="Optional instruction for reranking behavior")
    metadata: list[str] | None = Field(default=None, description="Optional metadata for each document")
    model: str = Field(default="ctxl-rerank-en-v1-instruct", description="Reranker model to use")


class ContextualAIParseSchema(BaseModel):
    """Input for ContextualAIParseTool."""

    file_path: str = Field(..., description="Path to the document to parse")
    parse_mode: str = Field(default="standard", description="Parsing mode")
    figure_caption_mode: str = Field(default="concise", description="Figure caption mode")
    enable_document_hierarchy: bool = Field(default=True, description="Enable document hierarchy")
    page_range: str | None = Field(default=None, description="Page range to parse (e.g., '0-5')")
    output_types: list[str] = Field(default=["markdown-per-page"], description="List of output types")


class _ContextualTool(HostedTool):
    poll_interval: float = Field(default=5.0, gt=0, description="Seconds between status checks")
    max_wait: float = Field(default=600.0, gt=0, description="Most seconds to wait for documents or a parse job")

    _service: ClassVar[str] = "Contextual AI"
    _key_envs: ClassVar[tuple[str, ...]] = ("CONTEXTUAL_API_KEY",)
    _base_env: ClassVar[str | None] = "CONTEXTUAL_BASE_URL"
    _default_base: ClassVar[str] = "https://api.contextual.ai"
    _unsupported: ClassVar[dict[str, str]] = {
        "contextual_client": "the tool calls Contextual AI's REST API itself; pass api_key=/base_url= instead",
    }

    def _key_hint(self) -> str:
        return "pass api_key=... or set CONTEXTUAL_API_KEY"

    def _headers(self) -> dict[str, str] | ToolFailure:
        key = self._key_or_failure()
        return key if isinstance(key, ToolFailure) else {"Authorization": f"Bearer {key}"}

    def _api(self, method: str, path: str, **kw: Any) -> Any:
        headers = self._headers()
        if isinstance(headers, ToolFailure):
            return headers
        return self._call(method, "/v1" + path, headers=headers, **kw)


def _files(paths: list[str]) -> list[Path] | ToolFailure:
    out = []
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.is_file():
            return ToolFailure(message=f"Document not found: {raw}", code="file_not_found")
        out.append(path)
    return out


class ContextualAICreateAgentTool(_ContextualTool):
    """Creates a datastore, uploads the documents into it, and creates a RAG agent over it."""

    name: str = "Contextual AI Create Agent Tool"
    description: str = "Create a new Contextual AI RAG agent with documents and datastore"
    args_schema: type[BaseModel] = ContextualAICreateAgentSchema

    def _run(self, agent_name: str, agent_description: str, datastore_name: str, document_paths: list[str]) -> str | ToolFailure:
        files = _files(document_paths)
        if isinstance(files, ToolFailure):
            return files
        datastore = self._api("POST", "/datastores", json_body={"name": datastore_name})
        if isinstance(datastore, ToolFailure):
            return datastore
        datastore_id = datastore["id"]
        for path in files:
            with path.open("rb") as handle:
                ingested = self._api("POST", f"/datastores/{datastore_id}/documents", files={"file": (path.name, handle)})
            if isinstance(ingested, ToolFailure):
                return ingested
        agent = self._api("POST", "/agents", json_body={"name": agent_name, "description": agent_description,
                                                        "datastore_ids": [datastore_id]})
        if isinstance(agent, ToolFailure):
            return agent
        return (f"Successfully created agent '{agent_name}' with ID: {agent['id']} and datastore ID: {datastore_id}. "
                f"Uploaded {len(files)} documents.")


class ContextualAIQueryTool(_ContextualTool):
    """Asks a Contextual AI RAG agent; answers its grounded reply."""

    name: str = "Contextual AI Query Tool"
    description: str = "Use this tool to query a Contextual AI RAG agent with access to your documents"
    args_schema: type[BaseModel] = ContextualAIQuerySchema

    def _documents_ready(self, datastore_id: str) -> bool | ToolFailure:
        listing = self._api("GET", f"/datastores/{datastore_id}/documents")
        if isinstance(listing, ToolFailure):
            return listing
        return not any(d.get("status") in ("processing", "pending") for d in listing.get("documents", []))

    def _run(self, query: str, agent_id: str, datastore_id: str | None = None) -> str | ToolFailure:
        if datastore_id:
            deadline = time.monotonic() + self.max_wait
            while (ready := self._documents_ready(datastore_id)) is False and time.monotonic() + self.poll_interval < deadline:
                time.sleep(self.poll_interval)
            if isinstance(ready, ToolFailure):
                return ready
        reply = self._api("POST", f"/agents/{agent_id}/query",
                          json_body={"messages": [{"role": "user", "content": query}], "stream": False})
        if isinstance(reply, ToolFailure):
            return reply
        message = reply.get("message") if isinstance(reply, dict) else None
        if isinstance(message, dict) and "content" in message:
            return str(message["content"])
        return json.dumps(reply)


class ContextualAIRerankTool(_ContextualTool):
    """Reorders documents by relevance to a query (following an instruction) with Contextual AI's reranker."""

    name: str = "Contextual AI Document Reranker"
    description: str = "Rerank documents using Contextual AI's instruction-following reranker"
    args_schema: type[BaseModel] = ContextualAIRerankSchema

    def _run(
        self, query: str, documents: list[str], instruction: str | None = None, metadata: list[str] | None = None,
        model: str = "ctxl-rerank-en-v1-instruct",
    ) -> str | ToolFailure:
        body: dict[str, Any] = {"query": query, "documents": documents, "model": model}
        if instruction:
            body["instruction"] = instruction
        if metadata:
            if len(metadata) != len(documents):
                return ToolFailure(message="metadata must have one entry per document", code="invalid_metadata")
            body["metadata"] = metadata
        reply = self._api("POST", "/rerank", json_body=body)
        return reply if isinstance(reply, ToolFailure) else json.dumps(reply, indent=2)


class ContextualAIParseTool(_ContextualTool):
    """Parses a document (PDF, DOCX...) into Markdown and structure with Contextual AI's parser."""

    name: str = "Contextual AI Document Parser"
    description: str = "Parse documents using Contextual AI's advanced document parser"
    args_schema: type[BaseModel] = ContextualAIParseSchema

    def _run(
        self, file_path: str, parse_mode: str = "standard", figure_caption_mode: str = "concise",
        enable_document_hierarchy: bool = True, page_range: str | None = None, output_types: list[str] | None = None,
    ) -> str | ToolFailure:
        files = _files([file_path])
        if isinstance(files, ToolFailure):
            return files
        form = {"parse_mode": parse_mode, "figure_caption_mode": figure_caption_mode,
                "enable_document_hierarchy": "true" if enable_document_hierarchy else "false"}
        if page_range:
            form["page_range"] = page_range
        with files[0].open("rb") as handle:
            started = self._api("POST", "/parse", data=form, files={"raw_file": (files[0].name, handle)})
        if isinstance(started, ToolFailure):
            return started
        job = started.get("job_id")
        deadline = time.monotonic() + self.max_wait
        while True:
            status = self._api("GET", f"/parse/jobs/{job}/status")
            if isinstance(status, ToolFailure):
                return status
            if status.get("status") == "completed":
                break
            if status.get("status") == "failed":
                return ToolFailure(message=f"Document parsing failed (job {job})", code="parse_failed")
            if time.monotonic() + self.poll_interval > deadline:
                return ToolFailure(message=f"The parse job {job} was not done after {self.max_wait:g}s", code="parse_timeout")
            time.sleep(self.poll_interval)
        results = self._api("GET", f"/parse/jobs/{job}/results",
                            params={"output_types": ",".join(output_types or ["markdown-per-page"])})
        return results if isinstance(results, ToolFailure) else json.dumps(results, indent=2)
