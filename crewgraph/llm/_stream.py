"""Assemble a streamed chat completion into one ``LLMResponse`` while reporting its deltas.

Streaming must not change what a model call returns: nodes still need the
whole reply (text, tool calls, usage) at the end of the turn. So the client
feeds every ``ChatCompletionChunk`` of the SSE stream here: text and tool-call
fragments are passed on to ``on_chunk`` the moment they arrive and
accumulated at the same time; :meth:`StreamAssembler.response` then builds the
same ``LLMResponse`` the non-streaming path would have returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crewgraph.errors import LLMError
from crewgraph.llm.structured import usage_from_completion
from crewgraph.llm.types import LLMResponse, OnChunk, StreamDelta, ToolCall, ToolCallDelta
from crewgraph.outputs import UsageMetrics

__all__ = ["StreamAssembler"]


@dataclass
class _PendingCall:
    """A tool call being assembled from its deltas."""

    id: str | None = None
    name: str = ""
    arguments: str = ""


class StreamAssembler:
    """Accumulates the chunks of one streamed completion (choice 0) and forwards its deltas."""

    def __init__(self, model: str, endpoint: str, on_chunk: OnChunk | None) -> None:
        self.model = model
        self.endpoint = endpoint
        self.on_chunk = on_chunk
        self.deltas = 0
        """Deltas forwarded so far; after the first, a failure can no longer be retried cleanly."""
        self._text: list[str] = []
        self._calls: dict[int, _PendingCall] = {}
        self._usage: UsageMetrics | None = None
        self._finish_reason: str | None = None
        self._served_model: str | None = None
        self._saw_choice = False

    def feed(self, chunk: Any) -> None:
        """Take one ``ChatCompletionChunk``: record it and report its text and tool-call deltas."""
        self._served_model = getattr(chunk, "model", None) or self._served_model
        if getattr(chunk, "usage", None) is not None:
            # With stream_options.include_usage the last chunk has no choices, only usage.
            self._usage = usage_from_completion(chunk)
        for choice in getattr(chunk, "choices", None) or []:
            if getattr(choice, "index", 0) != 0:
                continue
            self._saw_choice = True
            if choice.finish_reason:
                self._finish_reason = choice.finish_reason
            delta = choice.delta
            if delta is None:
                continue
            if delta.content:
                self._text.append(delta.content)
                self._forward(StreamDelta(text=delta.content))
            for tc in getattr(delta, "tool_calls", None) or []:
                self._tool_delta(tc)

    def _tool_delta(self, tc: Any) -> None:
        index = int(getattr(tc, "index", 0) or 0)
        pending = self._calls.setdefault(index, _PendingCall())
        if tc.id:
            pending.id = tc.id
        function = getattr(tc, "function", None)
        name = getattr(function, "name", None) if function is not None else None
        fragment = (getattr(function, "arguments", None) or "") if function is not None else ""
        if name and not pending.name:
            # OpenAI sends the name once; some servers repeat it in every delta.
            pending.name = name
        pending.arguments += fragment
        if name or fragment:
            self._forward(
                StreamDelta(
                    tool_call=ToolCallDelta(
                        index=index, id=pending.id, name=pending.name, arguments=fragment
                    )
                )
            )

    def _forward(self, delta: StreamDelta) -> None:
        self.deltas += 1
        if self.on_chunk is not None:
            self.on_chunk(delta)

    def response(self) -> LLMResponse:
        """The whole turn, as the non-streaming call would have returned it."""
        if not self._saw_choice:
            raise LLMError(f"LLM {self.model!r} streamed no choices ({self.endpoint})")
        calls = [
            ToolCall(id=p.id or f"call_{i}", name=p.name, arguments=p.arguments or "{}")
            for i, p in sorted(self._calls.items())
            if p.name
        ]
        return LLMResponse(
            content="".join(self._text) if self._text else None,
            tool_calls=calls,
            # Servers that ignore stream_options report no usage: the request still counts.
            usage=self._usage or UsageMetrics(successful_requests=1),
            model=self._served_model or self.model,
            finish_reason=self._finish_reason,
        )
