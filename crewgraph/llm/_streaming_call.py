"""One model turn over SSE, for ``LLM``: watched streams and internal ones.

Two reasons to stream:

- **Watched** (``on_chunk``, a ``Crew(stream=True)`` run): deltas go to the
  consumer as they arrive. The request and the read of the first chunk run
  under the retry policy (nothing has been shown yet, so a retry is
  invisible); a failure after that is final (see
  :func:`~crewgraph.llm._retry.stream_broken`), because a retry would show
  the consumer the same text twice.
- **Internal** (``LLM(idle_timeout=...)`` or ``LLM(stream=True)``): nobody
  watches, so the whole stream is one attempt. A slow local model is judged
  by the pause between tokens (the transport's idle deadline) rather than by
  the length of its answer, and an attempt given up closes the stream, which
  tells the server to stop generating. A server that refuses streaming is
  asked again without it, and remembered.

Usage comes from ``stream_options.include_usage``; a server that rejects that
option is asked again without it, and remembered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crewgraph.errors import LLMError
from crewgraph.llm._retry import call_with_retries, stream_broken
from crewgraph.llm._stream import StreamAssembler
from crewgraph.llm.types import LLMResponse, OnChunk, ToolSpec

if TYPE_CHECKING:
    from crewgraph.llm.openai_llm import LLM

__all__ = ["STREAM_REFUSED", "STREAM_USAGE", "chat_stream"]

_log = logging.getLogger("crewgraph.llm")

STREAM_USAGE = "stream_usage"
"""Key in ``LLM._unsupported_modes`` once a server has rejected ``stream_options``."""
STREAM_REFUSED = "stream"
"""Key in ``LLM._unsupported_modes`` once a server has rejected ``stream: true``."""


async def chat_stream(
    llm: LLM,
    messages: list[dict[str, Any]],
    tools: list[ToolSpec] | None,
    params: dict[str, Any],
    emit: Callable[[Any], None] | None,
    on_chunk: OnChunk | None,
    *,
    internal: bool = False,
) -> LLMResponse:
    """Stream one turn; return the whole reply (see the module docstring)."""
    client = await llm._client()
    request = llm._chat_request(messages, tools, params)
    request["stream"] = True
    with_usage = STREAM_USAGE not in llm._unsupported_modes
    if with_usage:
        request["stream_options"] = {"include_usage": True}
    refused: list[tuple[str, str]] = []

    async def _open() -> tuple[Any, Any]:
        await llm.rate_limiter.acquire()
        stream = await client.chat.completions.create(**request)
        try:
            return stream, await _next_chunk(stream, llm.endpoint)
        except BaseException:
            await stream.close()
            raise

    async def _whole() -> LLMResponse:
        stream, first = await _open()
        assembler = StreamAssembler(llm.model, llm.endpoint, None)
        try:
            chunk = first
            while chunk is not None:
                assembler.feed(chunk)
                chunk = await _next_chunk(stream, llm.endpoint)
        finally:
            await stream.close()
        try:
            return assembler.response()
        except LLMError as exc:  # a 200 that streamed no completion: as transient as a garbled reply
            err = _malformed(stream, f"malformed stream from {llm.endpoint}: {exc}")
            raise err from err.__cause__

    def _no_retry(status: int | None, message: str) -> bool:
        if with_usage and _refuses_stream_options(status, message):
            refused.append((STREAM_USAGE, message))
            return True
        if internal and _refuses_streaming(status, message):
            refused.append((STREAM_REFUSED, message))
            return True
        return llm._refuses_tools(tools, status, message)

    retry: dict[str, Any] = {"settings": llm.retry_settings, "model": llm.model, "endpoint": llm.endpoint,
                             "emit": emit, "no_retry": _no_retry}
    try:
        if internal:
            return await call_with_retries(_whole, **retry)
        stream, first = await call_with_retries(_open, **retry)
    except LLMError:
        if not refused:
            raise
        what, message = refused[-1]
        llm._unsupported_modes.add(what)
        if what == STREAM_REFUSED:
            _log.info("LLM %s: server rejected streaming (%s); asking without it", llm.model, message)
            return await llm._chat(messages, tools, params, emit)
        _log.info("LLM %s: server rejected stream_options (%s); streaming without usage", llm.model, message)
        return await chat_stream(llm, messages, tools, params, emit, on_chunk, internal=internal)
    assembler = StreamAssembler(llm.model, llm.endpoint, on_chunk)
    try:
        chunk = first
        while chunk is not None:
            assembler.feed(chunk)  # on_chunk's own errors propagate as they are
            try:
                chunk = await _next_chunk(stream, llm.endpoint)
            except Exception as exc:
                raise stream_broken(exc, model=llm.model, endpoint=llm.endpoint, deltas=assembler.deltas) from exc
    finally:
        await stream.close()
    return assembler.response()


def _refuses_stream_options(status: int | None, message: str) -> bool:
    """The server does not know ``stream_options`` (older OpenAI-compatible servers say 400/422)."""
    return status in (400, 422) and "stream_options" in message.lower()


def _refuses_streaming(status: int | None, message: str) -> bool:
    """The server does not stream (400/422/501 mentioning ``stream``, not ``stream_options``)."""
    text = message.lower()
    return status in (400, 422, 501) and "stream" in text and "stream_options" not in text


async def _next_chunk(stream: Any, endpoint: str) -> Any:
    """The stream's next chunk (None at its end), with transport errors as openai errors.

    The SDK raises raw transport errors (a reset, a read timeout, a chunk that
    is not JSON) while a stream is read; turned into ``APIConnectionError``/
    ``APITimeoutError`` they are classified, and retried, like the same
    failure during the request.
    """
    import openai

    try:
        return await stream.__anext__()
    except StopAsyncIteration:
        return None
    except openai.OpenAIError:
        raise
    except Exception as exc:
        request = stream.response.request
        if "timeout" in type(exc).__name__.lower():
            raise openai.APITimeoutError(request=request) from exc
        if isinstance(exc, ValueError):  # json.JSONDecodeError: a garbled event
            err = _malformed(stream, f"malformed stream event from {endpoint}: {exc}")
            raise err from err.__cause__
        raise openai.APIConnectionError(message=f"{type(exc).__name__}: {exc}", request=request) from exc


def _malformed(stream: Any, message: str) -> Exception:
    """An ``APIConnectionError`` caused by a :class:`MalformedReplyError` (retried as transient)."""
    import openai

    from crewgraph.llm._transport import MalformedReplyError

    bad = MalformedReplyError(message)
    err = openai.APIConnectionError(message=message, request=stream.response.request)
    err.__cause__ = bad
    return err
