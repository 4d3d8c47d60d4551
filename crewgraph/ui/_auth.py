"""The API token gate (pure ASGI, so server-sent-event streams pass through untouched).

- Bound to loopback without ``--token``: no token, but the ``Host`` header must
  name a loopback host too, so a web page elsewhere cannot reach the server
  through DNS rebinding.
- Bound to anything else (or given ``--token``): every request but the static
  files must carry the token: ``Authorization: Bearer T``, ``X-CrewGraph-Token: T``,
  the ``crewgraph_token`` cookie, or ``?token=T``. A page opened with ``?token=``
  gets the cookie (HttpOnly, SameSite=Strict) and is redirected to its address
  without the token, so the token is given once and not left in the history.
Tokens are compared with :func:`hmac.compare_digest` (constant time).

In both modes a state-changing request (POST...) from a page of another origin is
refused 403, and it must be JSON or carry the token as a header (see
:mod:`crewgraph.ui._guard`). The ``?token=`` redirect only ever goes to a path of
this server (``//evil.example/x`` becomes ``/evil.example/x``).
"""

from __future__ import annotations

import hmac
import json
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from crewgraph.ui._guard import SAFE_METHODS, foreign_origin, needs_json
from crewgraph.ui.settings import TOKEN_COOKIE, is_loopback

__all__ = ["TokenGate"]

_OPEN_PREFIXES = ("/static/",)


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _host_name(header: str) -> str:
    """The name in a Host header, without the port (``[::1]:80`` -> ``::1``)."""
    header = header.strip()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _local_path(path: str) -> str:
    """``path`` as a redirect target that stays on this server: one leading slash, no
    backslashes (``//host/x`` and ``/\\host/x`` are other sites to a browser), percent-encoded."""
    return "/" + quote(path.replace("\\", "/").lstrip("/"), safe="/:@!$&'()*+,;=-._~")


def _bearer(headers: dict[str, str]) -> str | None:
    auth = headers.get("authorization", "")
    return auth[7:].strip() if auth.lower().startswith("bearer ") else None


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))


async def _reply(send: Any, status: int, body: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None) -> None:
    data = json.dumps(body).encode("utf-8")
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": data})


class TokenGate:
    """Wraps the app: checks the token (when there is one) and the Host header (when not)."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        path = str(scope.get("path", ""))
        method = str(scope.get("method", "GET")).upper()
        if method not in SAFE_METHODS:
            foreign = foreign_origin(headers, str(scope.get("scheme", "http")))
            if foreign is not None:
                await _reply(send, 403, {"error": {"message": foreign, "field": "origin"}})
                return
            by_header = self.token is not None and any(_same(g, self.token) for g in (
                _bearer(headers), headers.get("x-crewgraph-token")) if g is not None)
            kind = None if by_header else needs_json(headers)
            if kind is not None:
                await _reply(send, 415, {"error": {"message": kind, "field": "content-type"}})
                return
        if self.token is None:
            host = _host_name(headers.get("host", ""))
            if host and not is_loopback(host):
                await _reply(send, 403, {"error": {"message": f"host {host!r} is not a loopback name; "
                                                   "start the server with --token to serve other hosts",
                                                   "field": "host"}})
                return
            await self.app(scope, receive, send)
            return
        if path.startswith(_OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        from_query = next((v for k, v in query if k == "token"), None)
        given = [from_query, _bearer(headers), headers.get("x-crewgraph-token"), _cookie(headers.get("cookie", ""), TOKEN_COOKIE)]
        if not any(_same(g, self.token) for g in given if g is not None):
            await _reply(send, 401, {"error": {"message": "missing or wrong API token (give it as "
                                               "'Authorization: Bearer TOKEN' or ?token=TOKEN)", "field": "token"}})
            return
        if _same(from_query, self.token) and scope.get("method") == "GET":
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            location = _local_path(path) + (f"?{rest}" if rest else "")
            cookie = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
            await _reply(send, 303, {"redirect": location},
                         [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode("latin-1"))])
            return
        await self.app(scope, receive, send)
