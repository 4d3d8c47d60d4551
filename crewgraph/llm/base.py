"""The LLM contract every model client (real, fake, recorded) implements.

Nodes only ever talk to :class:`BaseLLM`: ``acall`` for one model turn with
optional tools or a structured ``response_model``. The real client
(:class:`crewgraph.llm.LLM`) adds HTTP retries, rate limits and instructor;
``crewgraph.testing.FakeLLM`` scripts replies for tests.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from crewgraph.llm.types import LLMResponse, ToolSpec

__all__ = ["BaseLLM"]


class BaseLLM(ABC):
    """Abstract model client. Subclasses implement :meth:`acall`."""

    model: str = "unknown"

    @abstractmethod
    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        """Send one conversation turn and return the model's reply.

        With ``response_model``, the reply's ``parsed`` holds a validated
        instance (or the call raises ``StructuredOutputError``). With
        ``tools``, the reply may carry ``tool_calls`` instead of text.

        Streaming is optional and never changes the return value: a client that
        can stream calls ``on_chunk`` (a :data:`~crewgraph.llm.types.OnChunk`)
        with each :class:`~crewgraph.llm.types.StreamDelta` as it arrives and
        still returns the whole reply. Clients that cannot stream ignore
        ``on_chunk``; structured calls (``response_model``) do not stream.
        """

    def call(
        self,
        messages: list[dict[str, Any]] | str,
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        """Blocking form of :meth:`acall`; a plain string is sent as one user message."""
        msgs = [{"role": "user", "content": messages}] if isinstance(messages, str) else messages
        from crewgraph._internal.sync import run_sync
        from crewgraph._internal.usage_scope import record_usage

        response = run_sync(self.acall(msgs, tools=tools, response_model=response_model, **kwargs))
        record_usage(response.usage)  # a direct call inside a flow method counts in its usage_metrics
        return response

    def supports_function_calling(self) -> bool:
        return True

    @property
    def rate_limit_key(self) -> str:
        """Key under which max_rpm limits are shared (same model + endpoint)."""
        return self.model

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"
