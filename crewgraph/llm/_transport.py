"""The HTTP transport under every model request: deadlines, slots and reply checks.

httpx's ``timeout`` bounds each read, not the whole reply, so a server that
drips its body a byte at a time never times out. And the openai SDK trusts a
200: an HTML page from a proxy, invalid JSON or ``"message": null`` surface
later as ``AttributeError``/``JSONDecodeError`` far from the request. Wrapping
the transport puts both fixes below the SDK *and* instructor (structured
output goes through the same client), for every ``/chat/completions`` request:

- **Slot.** A per-endpoint concurrency slot is taken first
  (:mod:`crewgraph.llm._slots`), so waiting for one is not counted as time
  spent on the request.
- **Total deadline.** ``total`` seconds from sending to the last byte of a
  plain reply; for a streamed reply (``text/event-stream``) also to its end.
- **Idle deadline.** For a streamed reply, at most ``idle`` seconds between
  chunks (including the first): a slow but steady local model is not cut
  off, a stalled one is.
- **Checks.** A 200 reply must be a JSON chat completion with a non-empty
  ``choices`` list whose first ``message`` is an object. Anything else raises
  :class:`MalformedReplyError` naming the endpoint, the content type and the
  first bytes; the retry policy treats it as transient. A ``usage`` block of
  the wrong shape is replaced by zeros with a warning.

Deadlines surface as ``httpx.ReadTimeout`` (which the SDK maps to
``APITimeoutError``); giving up closes the response, so the server sees the
connection drop and can stop generating.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import sys
from collections.abc import AsyncIterator
from typing import Any

from crewgraph.llm._slots import EndpointSlots

__all__ = ["MalformedReplyError", "check_completion", "guarded_transport", "sdk_httpx"]

_log = logging.getLogger("crewgraph.llm")
_PREVIEW = 120
_USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


class MalformedReplyError(Exception):
    """A 2xx reply that is not a usable chat completion (transient: the next attempt may be fine)."""


def sdk_httpx() -> Any:
    """The httpx module the installed openai SDK is built on (``httpx``, or its fork ``httpx2``)."""
    import openai

    for cls in openai.DefaultAsyncHttpxClient.__mro__:
        if cls.__name__ == "AsyncClient":
            return sys.modules[cls.__module__.split(".")[0]]
    import httpx  # pragma: no cover - SDKs before the fork

    return httpx


def guarded_transport(
    *, endpoint: str, slots: EndpointSlots, total: float, idle: float | None, limits: Any = None,
    interceptor: Any = None,
) -> Any:
    """A :class:`GuardedTransport` (of the SDK's httpx) around that httpx's default transport
    (itself wrapped by ``interceptor``, a :class:`~crewgraph.llm.interceptor.BaseInterceptor`,
    when given: the checks and deadlines apply to what the interceptor sends and returns)."""
    hx = sdk_httpx()
    guarded, _ = _classes(hx)
    inner = hx.AsyncHTTPTransport(limits=limits) if limits is not None else hx.AsyncHTTPTransport()
    if interceptor is not None:
        from crewgraph.llm.interceptor import intercepting_transport

        inner = intercepting_transport(inner, interceptor, hx)
    return guarded(inner, endpoint=endpoint, slots=slots, total=total, idle=idle)


@functools.cache
def _classes(httpx: Any) -> tuple[Any, Any]:
    """The transport and stream classes, built on ``httpx`` (whichever module the SDK uses)."""
    return _define(httpx)


def _define(httpx: Any) -> tuple[Any, Any]:
    class GuardedTransport(httpx.AsyncBaseTransport):
        """Wraps a real transport; see the module docstring. One per HTTP client."""

        def __init__(
            self,
            inner: httpx.AsyncBaseTransport,
            *,
            endpoint: str,
            slots: EndpointSlots,
            total: float,
            idle: float | None = None,
        ) -> None:
            self.inner = inner
            self.endpoint = endpoint
            self.slots = slots
            self.total = total
            self.idle = idle

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.method != "POST" or not request.url.path.rstrip("/").endswith("/chat/completions"):
                return await self.inner.handle_async_request(request)
            await self.slots.acquire()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.total
            handed_over = False
            response = None
            # A streamed reply may not pause longer than ``idle``, and waiting for its headers
            # (a server queueing the request, or processing the prompt) is such a pause.
            first_wait = deadline
            if self.idle is not None and _asks_to_stream(request):
                first_wait = min(deadline, loop.time() + self.idle)
            try:
                try:
                    async with asyncio.timeout_at(first_wait) as bound:
                        response = await self.inner.handle_async_request(request)
                        bound.reschedule(deadline)
                        content_type = response.headers.get("content-type", "")
                        if "text/event-stream" in content_type:
                            stream = _GuardedStream(self, response, deadline)
                            handed_over = True
                            return httpx.Response(
                                response.status_code, headers=response.headers, stream=stream,
                                extensions=response.extensions,
                            )
                        raw = b"".join([part async for part in _aiter(response.stream)])
                        await _aclose(response.stream)
                except TimeoutError:
                    self.slots.note_timeout()
                    if response is not None:  # hang up: the connection must not be reused mid-reply
                        await _aclose(response.stream)
                    if response is None and first_wait < deadline:
                        what = (f"no data from {self.endpoint} for {self.idle:g}s (LLM idle_timeout, the "
                                "longest pause allowed in a stream, waiting for the first token included)")
                    else:
                        what = (f"no complete reply from {self.endpoint} within {self.total:g}s "
                                "(LLM timeout, the total time per attempt)")
                    raise httpx.ReadTimeout(what, request=request) from None
            finally:
                if not handed_over:
                    self.slots.release()
            # The raw bytes may be compressed: decode them as httpx would, then hand on plain bytes.
            decoded = httpx.Response(response.status_code, headers=response.headers, content=raw).read()
            if 200 <= response.status_code < 300:
                decoded = check_completion(decoded, response.headers.get("content-type", ""), self.endpoint)
            headers = [(k, v) for k, v in response.headers.multi_items()
                       if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
            headers.append(("content-length", str(len(decoded))))
            return httpx.Response(response.status_code, headers=headers, content=decoded,
                                  extensions=response.extensions)

        async def aclose(self) -> None:
            await self.inner.aclose()

    class _GuardedStream(httpx.AsyncByteStream):
        """A streamed body under the idle and total deadlines; releases the slot when closed."""

        def __init__(self, owner: GuardedTransport, response: httpx.Response, deadline: float) -> None:
            self.owner = owner
            self.response = response
            self.deadline = deadline
            self._released = False

        async def __aiter__(self) -> AsyncIterator[bytes]:
            loop = asyncio.get_running_loop()
            parts = _aiter(self.response.stream).__aiter__()
            idle = self.owner.idle
            while True:
                left = self.deadline - loop.time()
                wait = left if idle is None else min(idle, left)
                try:
                    if wait <= 0:
                        raise TimeoutError
                    part = await asyncio.wait_for(parts.__anext__(), wait)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    self.owner.slots.note_timeout()
                    if idle is not None and left > idle:
                        what = f"no data for {idle:g}s (LLM idle_timeout, the longest pause allowed in a stream)"
                    else:
                        what = f"stream not finished within {self.owner.total:g}s (LLM timeout)"
                    await self.aclose()
                    raise httpx.ReadTimeout(f"{self.owner.endpoint}: {what}") from None
                yield part

        async def aclose(self) -> None:
            try:
                await _aclose(self.response.stream)
            finally:
                if not self._released:
                    self._released = True
                    self.owner.slots.release()

    return GuardedTransport, _GuardedStream


def _asks_to_stream(request: Any) -> bool:
    """Whether a chat request asks for ``"stream": true`` (its JSON body is already in memory)."""
    try:
        body = json.loads(request.content or b"{}")
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(body, dict) and body.get("stream") is True


def _aiter(stream: Any) -> AsyncIterator[bytes]:
    return stream.__aiter__()


async def _aclose(stream: Any) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        await close()


def _preview(body: bytes) -> str:
    text = body[:_PREVIEW].decode("utf-8", errors="replace")
    return repr(text + ("..." if len(body) > _PREVIEW else ""))


def check_completion(body: bytes, content_type: str, endpoint: str) -> bytes:
    """``body`` if it is a usable chat completion (usage repaired if need be), else raise.

    Raises :class:`MalformedReplyError` naming what is wrong, the endpoint,
    the content type and the first bytes of the body.
    """

    def bad(why: str) -> MalformedReplyError:
        return MalformedReplyError(
            f"malformed reply from {endpoint}: {why} (HTTP 200, content type "
            f"{content_type or 'missing'!r}, body starts {_preview(body)})"
        )

    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise bad("not valid JSON") from None
    if not isinstance(data, dict):
        raise bad(f"a JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        if isinstance(data.get("error"), dict | str):
            error = data["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise bad(f"an error object with status 200: {message!r}")
        raise bad("no choices" if not choices else f"choices is a {type(choices).__name__}")
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise bad(f"choices[0].message is {'null' if message is None else type(message).__name__}")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise bad(f"message content is a {type(content).__name__}, not text")
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise bad(f"message tool_calls is a {type(calls).__name__}, not a list")
    usage = data.get("usage")
    if usage is not None and not _usage_ok(usage):
        _log.warning("LLM reply from %s has malformed usage %s; counting it as 0 tokens",
                     endpoint, _preview(json.dumps(usage).encode()))
        data["usage"] = {name: 0 for name in _USAGE_FIELDS}
        return json.dumps(data).encode()
    return body


def _usage_ok(usage: Any) -> bool:
    if not isinstance(usage, dict):
        return False
    for name in _USAGE_FIELDS:
        value = usage.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return False
    details = usage.get("prompt_tokens_details")
    if details is not None:
        cached = details.get("cached_tokens") if isinstance(details, dict) else "bad"
        if cached is not None and (isinstance(cached, bool) or not isinstance(cached, int)):
            return False
    return True
