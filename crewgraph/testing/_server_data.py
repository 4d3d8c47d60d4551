"""Data of the test server: scripted replies, recorded requests, deterministic embeddings.

Kept apart from the HTTP machinery in ``openai_server`` so the reply
vocabulary reads on its own; everything here is re-exported there.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.testing._server_faults import Misbehaviour

__all__ = ["UNSET", "RecordedRequest", "ScriptItem", "ServerReply", "embedding_for"]

UNSET: Any = object()
"""Marks a reply without a structured payload."""


@dataclass
class ServerReply:
    """One scripted answer to a ``/v1/chat/completions`` request.

    Build them with the class methods: :meth:`text`, :meth:`tool_calls`,
    :meth:`json`, :meth:`structured`, :meth:`error`, :meth:`disconnect`.
    ``payload`` is set by :meth:`structured`. ``delay`` seconds pass before the
    answer (client timeouts, latency benchmarks). ``usage`` overrides the
    estimated token counts (keys ``prompt_tokens``, ``completion_tokens``);
    ``cached_tokens`` is reported in
    ``prompt_tokens_details``. For a ``"stream": true`` request the reply is
    sent as SSE chunks, ``chunk_delay`` seconds apart; ``stream_break_after``
    hangs up after that many chunks (a stream that breaks mid-way).
    Misbehaving 200 replies (:meth:`drip`, :meth:`garbage`, :meth:`html`,
    :meth:`null_message`, :meth:`empty_choices`, :meth:`bad_usage`,
    :meth:`cut_off`) set ``misbehave``; see ``crewgraph.testing._server_faults``.
    """

    content: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    payload: Any = UNSET
    status: int = 200
    error_message: str = ""
    error_body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = None
    cached_tokens: int = 0
    drop_connection: bool = False
    finish_reason: str | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    stream_break_after: int | None = None
    misbehave: Misbehaviour | None = None

    @classmethod
    def text(cls, content: str, **kw: Any) -> ServerReply:
        """A plain assistant message."""
        return cls(content=content, **kw)

    @classmethod
    def tool_calls(cls, *calls: tuple[str, dict[str, Any] | str], **kw: Any) -> ServerReply:
        """Tool calls in one turn; each is ``(name, args)`` with args a dict or raw JSON text."""
        encoded = [(n, a if isinstance(a, str) else json.dumps(a)) for n, a in calls]
        return cls(calls=encoded, **kw)

    @classmethod
    def json(cls, value: Any, **kw: Any) -> ServerReply:
        """Content that is the JSON text of ``value``."""
        return cls(content=json.dumps(value), **kw)

    @classmethod
    def structured(cls, value: Any, **kw: Any) -> ServerReply:
        """What instructor expects in whatever mode it asked: a forced tool call or JSON text."""
        return cls(payload=value, **kw)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "",
        *,
        retry_after: float | str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> ServerReply:
        """An HTTP error; ``body`` replaces the default OpenAI-style ``{"error": {...}}``."""
        all_headers = dict(headers or {})
        if retry_after is not None:
            all_headers["Retry-After"] = str(retry_after)
        return cls(
            status=status,
            error_message=message or f"injected error {status}",
            error_body=body,
            headers=all_headers,
            delay=delay,
        )

    @classmethod
    def disconnect(cls) -> ServerReply:
        """Close the connection without answering (a connection reset for the client)."""
        return cls(drop_connection=True)

    # -- misbehaving 200 replies -----------------------------------------------
    @classmethod
    def drip(cls, content: str, *, delay: float = 0.05, chunk: int = 1, **kw: Any) -> ServerReply:
        """A valid completion whose body is sent ``chunk`` bytes every ``delay`` seconds."""
        from crewgraph.testing._server_faults import Misbehaviour

        return cls(content=content, misbehave=Misbehaviour(drip_delay=delay, drip_bytes=chunk), **kw)

    @classmethod
    def garbage(cls, body: str = '{"id": "chatcmpl-x", "choices": [{"mess', *,
                content_type: str = "application/json") -> ServerReply:
        """A 200 whose body is not JSON (by default a completion cut mid-way)."""
        from crewgraph.testing._server_faults import Misbehaviour

        return cls(misbehave=Misbehaviour(raw=body.encode(), content_type=content_type))

    @classmethod
    def html(cls, page: str = "<html><head><title>502 Bad Gateway</title></head>"
                              "<body><h1>502 Bad Gateway</h1></body></html>") -> ServerReply:
        """A 200 with an HTML page, as a proxy or captive portal sends."""
        return cls.garbage(page, content_type="text/html; charset=utf-8")

    @classmethod
    def null_message(cls, content: str = "ignored") -> ServerReply:
        """A completion whose ``choices[0].message`` is null."""
        from crewgraph.testing._server_faults import Misbehaviour, null_message

        return cls(content=content, misbehave=Misbehaviour(mangle=null_message))

    @classmethod
    def empty_choices(cls, content: str = "ignored") -> ServerReply:
        """A completion with ``"choices": []``."""
        from crewgraph.testing._server_faults import Misbehaviour, empty_choices

        return cls(content=content, misbehave=Misbehaviour(mangle=empty_choices))

    @classmethod
    def bad_usage(cls, content: str, usage: Any = None) -> ServerReply:
        """A good answer whose ``usage`` is of the wrong type (default: numbers as strings)."""
        from crewgraph.testing._server_faults import Misbehaviour, usage_as

        bad = {"prompt_tokens": "12", "completion_tokens": "3", "total_tokens": "15"} if usage is None else usage
        return cls(content=content, misbehave=Misbehaviour(mangle=usage_as(bad)))

    @classmethod
    def cut_off(cls, content: str, after_bytes: int = 20) -> ServerReply:
        """A completion whose body stops after ``after_bytes`` bytes: the server hangs up mid-reply."""
        from crewgraph.testing._server_faults import Misbehaviour

        return cls(content=content, misbehave=Misbehaviour(cut_after=after_bytes))


ScriptItem = ServerReply | str | Callable[[dict[str, Any]], "ServerReply | str"]


@dataclass
class RecordedRequest:
    """One request the server received: path, headers (lower-cased names) and JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def embedding_for(text: str, dimension: int = 32) -> list[float]:
    """The deterministic unit vector the server returns for ``text`` (for assertions)."""
    values: list[float] = []
    counter = 0
    while len(values) < dimension:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend((b / 127.5) - 1.0 for b in digest)
        counter += 1
    vec = values[:dimension]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]
