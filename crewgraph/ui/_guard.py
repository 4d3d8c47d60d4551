"""Cross-site request refusal: what keeps a page on another origin from driving the server.

A browser lets any page send a "simple" request (a form POST, or a ``fetch`` with a
form or text body and no custom headers) to any address, loopback included, and the
server cannot tell it from its own page by the body alone. So every state-changing
request (anything but GET, HEAD and OPTIONS) must pass two checks:

- **Origin**: when the browser names the page (``Origin``), it must be this server
  itself: the same host and port as the ``Host`` header, or a loopback name on the
  same port (``localhost`` and ``127.0.0.1`` are one server). ``Origin: null``
  (sandboxed frames, ``file:`` pages) is foreign. Without ``Origin`` a
  ``Sec-Fetch-Site`` other than ``same-origin``/``none`` is foreign too. Clients
  that are not browsers (curl, scripts) send neither and pass.
- **JSON**: ``Content-Type: application/json``, whatever the body (an empty body is
  not exempt), or the API token as a header (``Authorization: Bearer`` /
  ``X-CrewGraph-Token``): both need a CORS preflight the server never grants, so a
  foreign page cannot send them.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from crewgraph.ui.settings import is_loopback

__all__ = ["SAFE_METHODS", "foreign_origin", "needs_json"]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _split_host(header: str, scheme: str) -> tuple[str, int | None]:
    """``(name, port)`` from a Host header (``[::1]:8000`` -> ``("::1", 8000)``)."""
    try:
        parts = urlsplit(f"//{header.strip()}")
        port = parts.port
    except ValueError:
        return header.strip().lower(), None
    return (parts.hostname or "").lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def foreign_origin(headers: dict[str, str], scheme: str) -> str | None:
    """Why this request comes from another site (a message), or None when it does not."""
    origin = headers.get("origin")
    if origin is not None:
        origin = origin.strip()
        try:
            parts = urlsplit(origin)
            o_port = parts.port if parts.port is not None else _DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            return f"origin {origin!r} is not a valid origin"
        o_host = (parts.hostname or "").lower()
        if origin == "null" or not o_host or parts.scheme not in _DEFAULT_PORTS:
            return f"requests from origin {origin!r} are refused: only this server's own pages may change runs"
        host, port = _split_host(headers.get("host", ""), scheme)
        same = o_host == host and o_port == port
        loopback = is_loopback(o_host) and (not host or is_loopback(host)) and o_port == port
        if same or loopback:
            return None
        return (f"cross-site request from origin {origin!r} refused: only this server's own pages "
                f"(host {headers.get('host', '')!r}) may change runs")
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in {"same-origin", "none"}:
        return f"cross-site request refused (Sec-Fetch-Site: {site.strip()}): only this server's own pages may change runs"
    return None


def needs_json(headers: dict[str, str]) -> str | None:
    """Why the content type is refused (a message), or None for ``application/json``."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/json":
        return None
    return (f"send JSON (Content-Type: application/json) even with an empty body, not "
            f"{kind or 'no content type'!r}: a cross-site form cannot send JSON")
