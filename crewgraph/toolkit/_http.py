"""One way for the hosted tools to call a JSON API: bounded timeouts, failures the run can read.

Every hosted tool (Serper, Exa, Firecrawl, Apify, Browserbase, GitHub...) goes
through :func:`call_json`, so they all behave alike: a connect timeout and a
total timeout on each request, 429/5xx and timeouts returned as *retryable*
:class:`ToolFailure` (the tool node retries them), 401/403 as a failure that
names the service and the key's environment variable, and a reply that is not
JSON as a failure rather than a crash. httpx is imported on the first call.

A tool passes its own ``client`` (see :func:`new_client`; ``HostedTool``
keeps one per instance) so its calls reuse one connection pool instead of a
new TCP (and TLS) handshake per request; without one, a client is opened for
the request and closed after it.
"""

from __future__ import annotations

from typing import Any

from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["RETRYABLE_STATUS", "call_bytes", "call_json", "call_text", "error_detail", "new_client"]

RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_USER_AGENT = "crewgraph-toolkit/0.1"


def error_detail(payload: Any) -> str:
    """The human part of an API's error body (``{"error": {"message": ...}}``, ``{"message": ...}``...)."""
    if isinstance(payload, dict):
        for key in ("error", "message", "detail", "errors"):
            value = payload.get(key)
            if isinstance(value, dict):
                inner = value.get("message") or value.get("detail") or value.get("error") or value.get("type")
                if inner:
                    return error_detail(inner) if isinstance(inner, dict) else str(inner)
            elif isinstance(value, list) and value:
                return "; ".join(error_detail(v) if isinstance(v, dict) else str(v) for v in value[:3])
            elif value:
                return str(value)
    if isinstance(payload, str):
        return payload.strip()[:300]
    return ""


def new_client(timeout: float) -> Any:
    """An ``httpx.Client`` for one tool: bounded timeouts, redirects followed (at most 5), small pool."""
    import httpx

    return httpx.Client(
        timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
        follow_redirects=True,
        max_redirects=5,
        limits=httpx.Limits(max_connections=10, max_keepalive_connections=4, keepalive_expiry=30.0),
    )


def _send(
    method: str,
    url: str,
    *,
    service: str,
    headers: dict[str, str] | None,
    json_body: Any,
    params: dict[str, Any] | None,
    timeout: float,
    key_hint: str | None,
    accept: str,
    data: Any = None,
    files: Any = None,
    content: bytes | None = None,
    client: Any = None,
) -> Any:
    """The httpx response of one request, or a :class:`ToolFailure` (network error, timeout, HTTP error)."""
    import httpx

    sent = {"User-Agent": _USER_AGENT, "Accept": accept, **(headers or {})}
    limits = httpx.Timeout(timeout, connect=min(10.0, timeout))
    try:
        if client is not None:
            response = client.request(method, url, headers=sent, json=json_body, params=params, data=data,
                                      files=files, content=content, timeout=limits)
        else:
            with new_client(timeout) as one_off:
                response = one_off.request(method, url, headers=sent, json=json_body, params=params, data=data,
                                           files=files, content=content)
    except httpx.TimeoutException:
        return ToolFailure(
            message=f"{service} did not answer within {timeout:g}s ({method} {url})",
            code="timeout",
            retryable=True,
        )
    except httpx.HTTPError as exc:
        return ToolFailure(
            message=f"Could not reach {service} at {url}: {type(exc).__name__}: {exc}",
            code="network_error",
            retryable=isinstance(exc, httpx.TransportError),
        )
    status = response.status_code
    if status >= 400:
        try:
            payload: Any = response.json() if response.content else None
        except ValueError:
            payload = response.text
        detail = error_detail(payload)
        message = f"{service} answered HTTP {status} to {method} {url}" + (f": {detail}" if detail else "")
        if status in (401, 403) and key_hint:
            message += f" (check the API key: {key_hint})"
        return ToolFailure(
            message=message,
            code=f"http_{status}",
            retryable=status in RETRYABLE_STATUS,
            details={"status_code": status, "url": url},
        )
    return response


def call_json(
    method: str,
    url: str,
    *,
    service: str,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    params: dict[str, Any] | None = None,
    timeout: float = 30.0,
    key_hint: str | None = None,
    data: Any = None,
    files: Any = None,
    client: Any = None,
) -> Any | ToolFailure:
    """Send one request and return the decoded JSON reply, or a :class:`ToolFailure`.

    ``service`` names the API in messages ("Serper"); ``key_hint`` (e.g. "set
    SERPER_API_KEY") is added to authentication failures. ``data``/``files``
    send a form (multipart when there are files) instead of JSON; ``client``
    is the caller's pooled client (:func:`new_client`), else a one-off one.
    """
    response = _send(
        method, url, service=service, headers=headers, json_body=json_body, params=params,
        timeout=timeout, key_hint=key_hint, accept="application/json", data=data, files=files, client=client,
    )
    if isinstance(response, ToolFailure):
        return response
    try:
        payload: Any = response.json() if response.content else None
    except ValueError:
        payload = response.text
    if isinstance(payload, str):
        return ToolFailure(
            message=f"{service} answered {method} {url} with something that is not JSON: {payload[:200]!r}",
            code="invalid_response",
        )
    return payload


def call_text(
    method: str,
    url: str,
    *,
    service: str,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    params: dict[str, Any] | None = None,
    timeout: float = 30.0,
    key_hint: str | None = None,
    client: Any = None,
) -> str | ToolFailure:
    """Like :func:`call_json` for an API that answers text (Markdown, HTML): the body decoded."""
    response = _send(
        method, url, service=service, headers=headers, json_body=json_body, params=params,
        timeout=timeout, key_hint=key_hint, accept="text/plain, text/markdown, */*", client=client,
    )
    if isinstance(response, ToolFailure):
        return response
    return str(response.text)


def call_bytes(
    method: str,
    url: str,
    *,
    service: str,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    timeout: float = 30.0,
    key_hint: str | None = None,
    json_body: Any = None,
    content: bytes | None = None,
    files: Any = None,
    accept: str = "*/*",
    client: Any = None,
) -> Any | ToolFailure:
    """Like :func:`call_json` for a binary or streamed body: the httpx response itself (status < 400)."""
    return _send(
        method, url, service=service, headers=headers, json_body=json_body, params=params, timeout=timeout,
        key_hint=key_hint, accept=accept, content=content, files=files, client=client,
    )
