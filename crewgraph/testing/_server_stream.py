"""The test server's streaming answers: a chat completion re-cut as ``chat.completion.chunk``s.

A streamed reply is derived from the same completion the server would send
unstreamed, so both paths of a client see the same text, tool calls and
usage. The chunk sequence follows OpenAI's: a first delta with the role, text
deltas, per tool call a delta with its id and name followed by argument
fragments, a delta with the finish reason, and (when the request asked with
``stream_options.include_usage``) a last chunk with no choices and the usage.
Standard library only, like the server.
"""

from __future__ import annotations

import json
from typing import Any

from crewgraph.testing._pieces import argument_pieces, text_pieces

__all__ = ["SSE_DONE", "sse_frame", "stream_chunks"]

SSE_DONE = b"data: [DONE]\n\n"


def sse_frame(payload: dict[str, Any]) -> bytes:
    """One server-sent event carrying ``payload`` as JSON."""
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def stream_chunks(completion: dict[str, Any], *, include_usage: bool) -> list[dict[str, Any]]:
    """The chunks that stream ``completion`` (a ``chat.completion`` dict)."""
    choice = completion["choices"][0]
    message = choice["message"]
    base = {
        "id": completion["id"],
        "object": "chat.completion.chunk",
        "created": completion["created"],
        "model": completion["model"],
    }
    if include_usage:
        base["usage"] = None  # as OpenAI: null on every chunk but the last

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks.extend(chunk({"content": piece}) for piece in text_pieces(message.get("content") or ""))
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        opening = {"index": index, "id": call["id"], "type": "function",
                   "function": {"name": function["name"], "arguments": ""}}
        chunks.append(chunk({"tool_calls": [opening]}))
        chunks.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in argument_pieces(function["arguments"])
        )
    chunks.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        chunks.append({**base, "choices": [], "usage": completion["usage"]})
    return chunks
