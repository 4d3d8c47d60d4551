"""A local stand-in for a hosted JSON API: routes answered on ``127.0.0.1``, requests recorded.

The hosted tools and embedders (Serper, Exa, Firecrawl, Cohere, Voyage...) are
real HTTP clients; their tests and the docs' examples point them at this server
with the response shapes the real service documents. Standard library only.

Example::

    def search(request: FakeRequestRecord) -> dict:
        return {"organic": [{"title": "Hit", "link": "https://x.test", "snippet": "..."}]}

    with FakeHTTPService({"POST /search": search}) as api:
        tool = SerperDevTool(base_url=api.url, api_key="test")
        tool.run(search_query="crewgraph")
        assert api.requests[0].json == {"q": "crewgraph", "num": 10}

A route key is ``"METHOD /path"``; the path may end with ``*`` to match a
prefix. A handler returns a JSON-able payload (status 200), a ``(status,
payload)`` pair, or a ``(status, payload, headers)`` triple; a ``bytes`` or
``str`` payload is sent as it is (``text/html`` unless a header says otherwise).
A handler may also be a constant payload instead of a function.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from crewgraph.testing._local_server import LocalServer

__all__ = ["FakeHTTPService", "FakeRequestRecord"]


@dataclass
class FakeRequestRecord:
    """One request the fake received: method, path, query, headers (lower-case keys), body."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    params: dict[str, str] = field(default_factory=dict)
    """Values of ``{name}`` segments matched in the route."""

    @property
    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None

    @property
    def form(self) -> dict[str, str]:
        """The body parsed as ``application/x-www-form-urlencoded``."""
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}


Handler = Callable[[FakeRequestRecord], Any] | Any


def _match(pattern: str, path: str) -> dict[str, str] | None:
    if pattern.endswith("*"):
        return {} if path.startswith(pattern[:-1]) else None
    want, got = pattern.strip("/").split("/"), path.strip("/").split("/")
    if len(want) != len(got):
        return None
    params: dict[str, str] = {}
    for w, g in zip(want, got, strict=True):
        if w.startswith("{") and w.endswith("}"):
            params[w[1:-1]] = g
        elif w != g:
            return None
    return params


class FakeHTTPService:
    """An HTTP server on ``127.0.0.1`` (random port) answering ``routes``; see the module doc."""

    def __init__(self, routes: Mapping[str, Handler] | None = None) -> None:
        self.routes: dict[str, Handler] = dict(routes or {})
        self.requests: list[FakeRequestRecord] = []
        self._lock = threading.Lock()
        self._server = LocalServer("FakeHTTPService")

    def route(self, key: str, handler: Handler) -> None:
        """Add or replace a route (thread-safe)."""
        with self._lock:
            self.routes[key] = handler

    def start(self) -> FakeHTTPService:
        self._server.start(_make_handler(self))
        return self

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> FakeHTTPService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self._server.port}"

    def requests_to(self, path: str) -> list[FakeRequestRecord]:
        """The recorded requests whose path is ``path``."""
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def _answer(self, record: FakeRequestRecord) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            self.requests.append(record)
            routes = list(self.routes.items())
        for key, handler in routes:
            method, _, pattern = key.partition(" ")
            if method.upper() != record.method:
                continue
            params = _match(pattern, record.path)
            if params is None:
                continue
            record.params = params
            result = handler(record) if callable(handler) else handler
            if isinstance(result, tuple):
                status, payload, *rest = result
                return int(status), payload, dict(rest[0]) if rest else {}
            return 200, result, {}
        return 404, {"error": f"FakeHTTPService: no route for {record.method} {record.path}"}, {}


def _make_handler(service: FakeHTTPService) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            record = FakeRequestRecord(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            try:
                status, payload, headers = service._answer(record)
            except Exception as exc:  # a bug in a test's handler: answer instead of hanging
                status, payload, headers = 500, {"error": f"{type(exc).__name__}: {exc}"}, {}
            if isinstance(payload, bytes | str):
                data = payload.encode() if isinstance(payload, str) else payload
                content_type = "text/html; charset=utf-8"
            else:
                data, content_type = json.dumps(payload).encode(), "application/json"
            self.send_response(status)
            if not any(k.lower() == "content-type" for k in headers):
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    return _Handler
