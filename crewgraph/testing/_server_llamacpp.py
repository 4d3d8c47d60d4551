"""A llama.cpp server's habits, for :class:`~crewgraph.testing.OpenAICompatServer`.

What a laptop user meets with ``llama-server -c 8192 -np 1`` and a small model,
reproduced so tests can check crewgraph copes without a real model:

- the window it serves is not the one the model was trained for: ``/models``
  reports ``meta.n_ctx_train`` (what the GGUF says) beside ``meta.n_ctx``, and
  ``/props`` reports ``n_ctx``;
- a prompt longer than ``n_ctx`` is refused with HTTP 400 and llama.cpp's own
  body (``exceed_context_size_error``, ``n_prompt_tokens``, ``n_ctx``);
- an answer longer than the request's ``max_tokens`` is cut there, with
  ``finish_reason: "length"``;
- a streamed answer may be preceded by SSE comment lines (keep-alives) while
  the prompt is processed.

Small models' tool-calling habits are scripted with :func:`schema_echo` (the
tool's JSON Schema sent back as its arguments) and :func:`repeated_calls`
(one reply holding the same call many times).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from crewgraph.testing._server_data import ServerReply

__all__ = ["LlamaCpp", "repeated_calls", "schema_echo"]

_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class LlamaCpp:
    """Serve as ``llama-server -c n_ctx`` would (see the module docstring)."""

    n_ctx: int = 8192
    n_ctx_train: int = 32768
    report_n_ctx: bool = True
    """Whether ``/models`` carries ``meta.n_ctx`` (recent servers)."""
    serve_props: bool = True
    """Whether ``/props`` answers (with ``n_ctx``); off, the server says nothing of its window."""
    keepalive_comments: int = 0
    """SSE comment lines sent before a streamed answer's first chunk."""
    keepalive_delay: float = 0.0
    """Seconds between those comment lines (the prompt being processed)."""

    def prompt_tokens(self, body: dict[str, Any]) -> int:
        """The request's size in this server's tokens (~4 characters a token, tools included)."""
        size = len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools") or []))
        return max(1, size // _CHARS_PER_TOKEN)

    def refusal(self, body: dict[str, Any]) -> tuple[int, dict[str, str], Any] | None:
        """llama.cpp's 400 for a prompt longer than the window, else None."""
        tokens = self.prompt_tokens(body)
        if tokens <= self.n_ctx:
            return None
        message = (f"request ({tokens} tokens) exceeds the available context size ({self.n_ctx} tokens), "
                   "try increasing it")
        return 400, {}, {"error": {"code": 400, "message": message, "type": "exceed_context_size_error",
                                   "n_prompt_tokens": tokens, "n_ctx": self.n_ctx}}

    def cut(self, body: dict[str, Any], content: str | None) -> tuple[str | None, bool]:
        """``content`` cut at the request's ``max_tokens`` (and whether it was)."""
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        if not isinstance(limit, int) or content is None or len(content) <= limit * _CHARS_PER_TOKEN:
            return content, False
        return content[: limit * _CHARS_PER_TOKEN], True

    def models_entry(self, model: str) -> dict[str, Any]:
        meta: dict[str, Any] = {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": self.n_ctx_train,
                                "n_embd": 1536, "n_params": 1543714304, "size": 1117320736}
        if self.report_n_ctx:
            meta["n_ctx"] = self.n_ctx
        return {"id": model, "object": "model", "created": 0, "owned_by": "llamacpp", "meta": meta}

    def props(self, model: str) -> dict[str, Any]:
        return {"default_generation_settings": {"n_ctx": self.n_ctx, "params": {"n_predict": -1}},
                "total_slots": 1, "model_path": f"/models/{model}.gguf", "n_ctx": self.n_ctx}


def schema_echo(tool: str | None = None) -> Callable[[dict[str, Any]], ServerReply]:
    """A scripted reply that calls ``tool`` (default: the first offered) with the tool's own
    JSON Schema as its arguments, as small models do."""

    def reply(body: dict[str, Any]) -> ServerReply:
        tools = [t.get("function") or {} for t in body.get("tools") or []]
        chosen = next((t for t in tools if tool is None or t.get("name") == tool), None)
        if chosen is None:
            return ServerReply.error(400, f"schema_echo: the request offers no tool {tool!r}")
        return ServerReply.tool_calls((str(chosen["name"]), dict(chosen.get("parameters") or {})))

    return reply


def repeated_calls(name: str, arguments: dict[str, Any], times: int) -> ServerReply:
    """One reply holding the same tool call ``times`` times."""
    return ServerReply.tool_calls(*[(name, arguments)] * times)
