"""BedrockInvokeAgentTool / BedrockKBRetrieverTool: Amazon Bedrock Agents and Knowledge Bases (boto3).

Both call the ``bedrock-agent-runtime`` API: ``InvokeAgent`` (the agent's
streamed answer, its ``chunk`` events joined) and ``Retrieve`` (CrewAI's JSON:
``results`` with ``content``, ``content_type``, ``source_type``,
``source_uri``, ``score``, ``metadata``, plus ``nextToken`` /
``guardrailAction``). Ids come from the arguments or CrewAI's variables
(``BEDROCK_AGENT_ID``, ``BEDROCK_AGENT_ALIAS_ID``, ``BEDROCK_KB_ID``); the
region from ``AWS_REGION`` / ``AWS_DEFAULT_REGION``; credentials from boto3's
chain. A missing or malformed id is reported by ``config_problems`` (the crew
fails at compile time, naming the variable) and as a ``ToolFailure`` on a
direct call, where CrewAI raises at construction. ``endpoint_url=`` (or
boto3's ``AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME``) points at a stand-in.
Install with ``pip install 'crewgraph[aws]'``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._aws import boto3_client, client_error_text
from crewgraph.toolkit._hosted import missing_library
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["BedrockInvokeAgentTool", "BedrockInvokeAgentToolInput", "BedrockKBRetrieverTool",
           "BedrockKBRetrieverToolInput"]

_RETRYABLE = {"ThrottlingException", "ServiceQuotaExceededException", "InternalServerException",
              "DependencyFailedException", "BadGatewayException", "EndpointConnectionError", "ReadTimeoutError",
              "ConnectTimeoutError"}
_LOCATIONS = {
    "s3Location": ("uri", "S3"), "confluenceLocation": ("url", "Confluence"),
    "salesforceLocation": ("url", "Salesforce"), "sharePointLocation": ("url", "SharePoint"),
    "webLocation": ("url", "Web"), "customDocumentLocation": ("id", "CustomDocument"),
    "kendraDocumentLocation": ("uri", "KendraDocument"), "sqlLocation": ("query", "SQL"),
}


class BedrockInvokeAgentToolInput(BaseModel):
    """Input for BedrockInvokeAgentTool."""

    query: str = Field(..., description="The query to send to the agent")


class BedrockKBRetrieverToolInput(BaseModel):
    """Input for BedrockKBRetrieverTool."""

    query: str = Field(..., description="The query to retrieve information from the knowledge base")


class _BedrockTool(BaseTool):
    endpoint_url: str | None = Field(default=None, description="bedrock-agent-runtime endpoint (else boto3's)")
    timeout: float = Field(default=60.0, gt=0, description="Seconds allowed to connect and for each read")
    _default_region: ClassVar[str] = "us-east-1"

    def config_problems(self) -> list[str]:
        problems = self._problems()
        if importlib.util.find_spec("boto3") is None:
            problems.insert(0, missing_library(type(self).__name__, "boto3", "'crewgraph[aws]'"))
        return problems

    def _problems(self) -> list[str]:
        return []

    def _client(self) -> Any:
        region = os.getenv("AWS_REGION") or os.getenv("AWS_DEFAULT_REGION") or self._default_region
        return boto3_client(type(self).__name__, "bedrock-agent-runtime", region=region,
                            endpoint_url=self.endpoint_url, timeout=self.timeout)

    @staticmethod
    def _failure(exc: Exception) -> ToolFailure:
        code, message = client_error_text(exc)
        return ToolFailure(message=f"Error ({code}): {message}", code="bedrock_error",
                           retryable=code in _RETRYABLE or type(exc).__name__ in _RETRYABLE)


class BedrockInvokeAgentTool(_BedrockTool):
    """Sends the query to a Bedrock agent (with the current UTC time, as CrewAI does) and returns its answer."""

    name: str = "Bedrock Agent Invoke Tool"
    description: str = "An agent responsible for policy analysis."
    args_schema: type[BaseModel] = BedrockInvokeAgentToolInput
    agent_id: str | None = Field(default=None, description="The agent's id (else BEDROCK_AGENT_ID)")
    agent_alias_id: str | None = Field(default=None, description="The alias's id (else BEDROCK_AGENT_ALIAS_ID)")
    session_id: str | None = Field(default=None, description="Session id (default: a timestamp, one per tool)")
    enable_trace: bool = False
    end_session: bool = False
    _default_region: ClassVar[str] = "us-west-2"

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        return ("BEDROCK_AGENT_ID", "BEDROCK_AGENT_ALIAS_ID", "AWS_REGION", "AWS_DEFAULT_REGION")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        self.agent_id = self.agent_id or os.getenv("BEDROCK_AGENT_ID")
        self.agent_alias_id = self.agent_alias_id or os.getenv("BEDROCK_AGENT_ALIAS_ID")
        self.session_id = self.session_id or str(int(time.time()))

    def _problems(self) -> list[str]:
        problems = []
        if not self.agent_id:
            problems.append("BedrockInvokeAgentTool needs agent_id: pass agent_id=... or set BEDROCK_AGENT_ID")
        if not self.agent_alias_id:
            problems.append("BedrockInvokeAgentTool needs agent_alias_id: pass agent_alias_id=... or set "
                            "BEDROCK_AGENT_ALIAS_ID")
        return problems

    def _run(self, query: str) -> str | ToolFailure:
        problems = self._problems()
        if problems:
            return ToolFailure(message="; ".join(problems), code="invalid_configuration")
        prompt = (f"\nThe current time is: {datetime.now(UTC)}\n\nBelow is the users query or task. "
                  f"Complete it and answer it consicely and to the point:\n{query}\n")
        try:
            response = self._client().invoke_agent(
                agentId=self.agent_id, agentAliasId=self.agent_alias_id, sessionId=self.session_id,
                inputText=prompt, enableTrace=self.enable_trace, endSession=self.end_session)
            parts = []
            for event in response.get("completion", []):  # the event stream, read to its end
                chunk = event.get("chunk") or {}
                data = chunk.get("bytes")
                if data is not None:
                    parts.append(data.decode("utf-8") if isinstance(data, bytes | bytearray) else str(data))
        except ImportError as exc:
            return ToolFailure(message=str(exc), code="missing_library")
        except Exception as exc:  # ClientError, an error event in the stream, connection errors
            return self._failure(exc)
        completion = "".join(parts)
        if not completion:
            return ToolFailure(message=f"The Bedrock agent sent no answer (response keys: {sorted(response)})",
                               code="empty_response")
        return completion


class BedrockKBRetrieverTool(_BedrockTool):
    """Retrieves passages from a Bedrock Knowledge Base."""

    name: str = "Bedrock Knowledge Base Retriever Tool"
    description: str = "Retrieves information from an Amazon Bedrock Knowledge Base given a query"
    args_schema: type[BaseModel] = BedrockKBRetrieverToolInput
    knowledge_base_id: str | None = Field(default=None, description="The knowledge base's id (else BEDROCK_KB_ID)")
    number_of_results: int | None = Field(default=5, description="Results per query")
    retrieval_configuration: dict[str, Any] | None = None
    guardrail_configuration: dict[str, Any] | None = None
    next_token: str | None = None

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        return ("BEDROCK_KB_ID", "AWS_REGION", "AWS_DEFAULT_REGION")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        self.knowledge_base_id = self.knowledge_base_id or os.getenv("BEDROCK_KB_ID")
        if self.retrieval_configuration is None:
            search = {} if self.number_of_results is None else {"numberOfResults": self.number_of_results}
            self.retrieval_configuration = {"vectorSearchConfiguration": search}
        if self.knowledge_base_id:
            self.description = (f"Retrieves information from Amazon Bedrock Knowledge Base "
                                f"'{self.knowledge_base_id}' given a query")

    def _problems(self) -> list[str]:
        kb, problems = self.knowledge_base_id, []
        if not kb:
            problems.append("BedrockKBRetrieverTool needs knowledge_base_id: pass knowledge_base_id=... or set BEDROCK_KB_ID")
        elif len(kb) > 10 or not kb.isalnum():
            problems.append(f"BedrockKBRetrieverTool: knowledge_base_id {kb!r} must be at most 10 letters or digits")
        if self.next_token is not None and (not 1 <= len(self.next_token) <= 2048 or " " in self.next_token):
            problems.append("BedrockKBRetrieverTool: next_token must be 1 to 2048 characters without spaces")
        if self.number_of_results is not None and self.number_of_results < 1:
            problems.append("BedrockKBRetrieverTool: number_of_results must be greater than 0")
        return problems

    @staticmethod
    def _result(raw: dict[str, Any]) -> dict[str, Any]:
        content = raw.get("content") or {}
        location = raw.get("location") or {}
        source_type, source_uri = location.get("type", "unknown"), None
        for key, (uri_field, kind) in _LOCATIONS.items():
            if key in location:
                source_uri = location[key].get(uri_field)
                if not source_type or source_type == "unknown":
                    source_type = kind
                break
        out: dict[str, Any] = {"content": content.get("text", ""), "content_type": content.get("type", "text"),
                               "source_type": source_type, "source_uri": source_uri}
        for ours, theirs, holder in (("score", "score", raw), ("metadata", "metadata", raw),
                                     ("byte_content", "byteContent", content), ("row_content", "row", content)):
            if theirs in holder:
                out[ours] = holder[theirs]
        return out

    def _run(self, query: str) -> str | ToolFailure:
        problems = self._problems()
        if problems:
            return ToolFailure(message="; ".join(problems), code="invalid_configuration")
        params: dict[str, Any] = {"knowledgeBaseId": self.knowledge_base_id, "retrievalQuery": {"text": query}}
        if self.retrieval_configuration:
            params["retrievalConfiguration"] = self.retrieval_configuration
        if self.guardrail_configuration:
            params["guardrailConfiguration"] = self.guardrail_configuration
        if self.next_token:
            params["nextToken"] = self.next_token
        try:
            response = self._client().retrieve(**params)
        except ImportError as exc:
            return ToolFailure(message=str(exc), code="missing_library")
        except Exception as exc:
            return self._failure(exc)
        results = [self._result(r) for r in response.get("retrievalResults", [])]
        answer: dict[str, Any] = {"results": results} if results else {"message": "No results found for the given query."}
        for key in ("nextToken", "guardrailAction"):
            if key in response:
                answer[key] = response[key]
        return json.dumps(answer, indent=2, default=str)
