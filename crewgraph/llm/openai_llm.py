"""``LLM``: the real model client, over the ``openai`` SDK and any OpenAI-compatible server.

One class serves OpenAI, Azure-style gateways, OpenRouter, Ollama, vLLM,
llama.cpp and LM Studio, because they all speak ``/v1/chat/completions``.
The SDK, instructor and httpx are imported on first use so that defining
agents (and ``import crewgraph``) stays fast and works without credentials.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from crewgraph.errors import LLMError
from crewgraph.llm._clients import LoopClients, preload
from crewgraph.llm._retry import RetrySettings, call_with_retries, stream_broken
from crewgraph.llm._stream import StreamAssembler
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.rate_limit import shared_limiter
from crewgraph.llm.structured import (
    MODE_ORDER,
    NoStructuredReply,
    StructuredMode,
    create_structured,
    is_response_format_rejection,
    is_tools_rejection,
    mode_plan,
    parse_model_output,
    remember_mode,
    usage_from_completion,
)
from crewgraph.llm.types import LLMResponse, OnChunk, ToolCall, ToolSpec
from crewgraph.outputs import UsageMetrics

__all__ = ["LLM"]

_log = logging.getLogger("crewgraph.llm")

OLLAMA_BASE_URL = "http://localhost:11434/v1"
_LOCAL_DUMMY_KEY = "not-needed"
_REQUEST_PARAMS = frozenset({
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "seed", "n",
    "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs",
    "tool_choice", "parallel_tool_calls", "reasoning_effort", "user", "timeout",
})
_MODE_ORDER: tuple[str, ...] = MODE_ORDER
_CALL_OPTIONS = frozenset({"emit", "on_chunk", "stream"})
"""Keywords of ``acall`` that steer the call itself and are never sent as request parameters."""
_MISSING_KEY = (
    "No API key for LLM {model!r}: set the OPENAI_API_KEY environment variable "
    "(or pass api_key=...), or point base_url=... (or OPENAI_BASE_URL) at a local "
    "OpenAI-compatible server such as Ollama (http://localhost:11434/v1), vLLM, "
    "llama.cpp or LM Studio, which need no key. Shortcut: LLM(model='ollama/llama3.2')."
)


class LLM(BaseLLM):
    """A chat model reached through the ``openai`` SDK.

    ``model`` may carry a provider prefix: ``openai/gpt-4o-mini`` is sent as
    ``gpt-4o-mini``; ``ollama/llama3.2`` targets ``http://localhost:11434/v1``
    (or ``$OLLAMA_BASE_URL``) with a dummy key unless ``base_url`` says otherwise. Other prefixes are
    kept (OpenRouter-style names such as ``anthropic/claude-3.5-sonnet``).
    ``base_url``/``api_key`` default to ``OPENAI_BASE_URL``/``OPENAI_API_KEY``
    exactly as the SDK reads them. Construction never fails for lack of a key;
    the first call does, with instructions.

    ``max_retries`` counts HTTP retries of transient failures (see
    ``crewgraph.llm._retry``); ``retry_initial_delay``/``retry_max_delay`` tune
    the backoff and ``retry_after_max`` caps server-requested waits.
    ``max_rpm`` throttles calls with an :class:`RPMLimiter` shared by every client of the
    same model and endpoint (they draw on one provider quota).
    ``structured_mode`` picks how ``response_model`` is obtained (see
    :data:`crewgraph.llm.structured.StructuredMode`); ``validation_retries``
    bounds how often a validation error is fed back. Any other keyword
    (``top_p``, ``seed``, ``stop``, vendor options...) is sent with every request.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        max_rpm: int | None = None,
        structured_mode: StructuredMode = "auto",
        *,
        retry_initial_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        retry_after_max: float = 60.0,
        validation_retries: int = 2,
        **extra_body_params: Any,
    ) -> None:
        if structured_mode not in ("auto", *_MODE_ORDER):
            raise ValueError(
                "structured_mode must be 'auto', 'tools', 'json_schema', 'json_object' or 'json', "
                f"got {structured_mode!r}"
            )
        self.requested_model = model
        provider, _, name = model.partition("/")
        self.provider: str | None = provider if name and provider in ("openai", "ollama") else None
        self.model = name if self.provider else model
        if self.provider == "ollama" and base_url is None:
            base_url = os.environ.get("OLLAMA_BASE_URL") or OLLAMA_BASE_URL
            api_key = api_key or "ollama"
        self.base_url = base_url
        self.api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_rpm = max_rpm
        self.structured_mode: StructuredMode = structured_mode
        self.validation_retries = validation_retries
        self.extra_body_params = dict(extra_body_params)
        self.retry_settings = RetrySettings(
            max_retries=max_retries,
            initial_delay=retry_initial_delay,
            max_delay=retry_max_delay,
            retry_after_max=retry_after_max,
        )
        self.rate_limiter = shared_limiter(self.rate_limit_key, max_rpm)
        self._unsupported_modes: set[str] = set()
        self._clients = LoopClients(self._new_client)

    # -- copying ------------------------------------------------------------------
    def __deepcopy__(self, memo: dict[int, Any]) -> LLM:
        """Copies share this client: it is configuration plus connection pools and the
        ``max_rpm`` window, which must stay shared (deep-copied agents hit the same quota)."""
        return self

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the configuration only; clients and locks are rebuilt on the other side."""
        state = dict(self.__dict__)
        for runtime in ("_clients", "rate_limiter"):
            state.pop(runtime, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.rate_limiter = shared_limiter(self.rate_limit_key, self.max_rpm)
        self._clients = LoopClients(self._new_client)

    # -- configuration --------------------------------------------------------
    @property
    def max_retries(self) -> int:
        return self.retry_settings.max_retries

    def _resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or None

    @property
    def endpoint(self) -> str:
        """The base URL calls go to (for messages and rate-limit keys)."""
        return self._resolved_base_url() or "https://api.openai.com/v1"

    @property
    def rate_limit_key(self) -> str:
        return f"{self.endpoint}|{self.model}"

    def supports_function_calling(self) -> bool:
        """False once the server has refused a request with tools."""
        return "tools" not in self._unsupported_modes

    async def _client(self) -> Any:
        """The ``AsyncOpenAI`` client of the running event loop (see ``_clients``)."""
        await preload("openai")
        return await self._clients.get()

    def _new_client(self) -> Any:
        key = self.api_key or os.environ.get("OPENAI_API_KEY")
        base_url = self._resolved_base_url()
        if not key:
            if base_url is None:
                raise LLMError(_MISSING_KEY.format(model=self.requested_model))
            key = _LOCAL_DUMMY_KEY
        import openai

        return openai.AsyncOpenAI(
            api_key=key,
            base_url=base_url,
            timeout=self.timeout,
            max_retries=0,
            # The plain client: the SDK's default wrapper schedules aclose() from
            # __del__ on whatever loop is running, which fails for a closed loop.
            http_client=openai.DefaultAsyncHttpxClient(timeout=self.timeout),
        )

    async def aclose(self) -> None:
        """Close this loop's HTTP client now (it is also closed when its loop shuts down)."""
        await self._clients.aclose()

    def _params(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Request parameters: instance defaults, then per-call overrides; extras go in extra_body."""
        params: dict[str, Any] = {}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        extra = dict(self.extra_body_params)
        for key, value in kwargs.items():
            if key in _CALL_OPTIONS or callable(value) or value is None:
                continue
            if key in _REQUEST_PARAMS:
                params[key] = value
            else:
                extra[key] = value
        if extra:
            params["extra_body"] = extra
        return params

    # -- calls ------------------------------------------------------------------
    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        """One model turn: text, native tool calls, or a validated ``response_model``.

        With both ``tools`` and ``response_model`` the model may call tools; a
        text answer is then parsed with :func:`parse_model_output`.
        ``emit`` (a callable taking an event) receives ``LLMCallRetryEvent``s.
        ``on_chunk`` (or ``stream=True``) streams the turn over SSE, calling
        ``on_chunk`` with each :class:`~crewgraph.llm.types.StreamDelta`; the
        whole reply is still returned. Calls with ``response_model`` never stream.
        """
        emit: Callable[[Any], None] | None = kwargs.get("emit")
        on_chunk: OnChunk | None = kwargs.get("on_chunk")
        params = self._params(kwargs)
        if response_model is not None and not tools:
            return await self._structured(messages, response_model, params, emit)
        if response_model is None and (on_chunk is not None or kwargs.get("stream")):
            return await self._chat_stream(messages, tools, params, emit, on_chunk)
        response = await self._chat(messages, tools, params, emit)
        if response_model is not None and not response.tool_calls:
            response.parsed = parse_model_output(response.content, response_model)
        return response

    async def _chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[ToolSpec] | None,
        params: dict[str, Any],
        emit: Callable[[Any], None] | None,
    ) -> LLMResponse:
        client = await self._client()
        request = self._chat_request(messages, tools, params)

        async def _attempt() -> Any:
            await self.rate_limiter.acquire()
            return await client.chat.completions.create(**request)

        def _no_retry(status: int | None, message: str) -> bool:
            return self._refuses_tools(tools, status, message)

        completion = await call_with_retries(
            _attempt,
            settings=self.retry_settings,
            model=self.model,
            endpoint=self.endpoint,
            emit=emit,
            no_retry=_no_retry,
        )
        return self._to_response(completion)

    def _chat_request(
        self, messages: list[dict[str, Any]], tools: list[ToolSpec] | None, params: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": messages, **params}
        if tools:
            request["tools"] = [spec.to_openai() for spec in tools]
        return request

    def _refuses_tools(self, tools: list[ToolSpec] | None, status: int | None, message: str) -> bool:
        """A tools rejection is final (and remembered): retrying the same request cannot help."""
        if tools and is_tools_rejection(status, message):
            self._unsupported_modes.add("tools")
            return True
        return False

    async def _chat_stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[ToolSpec] | None,
        params: dict[str, Any],
        emit: Callable[[Any], None] | None,
        on_chunk: OnChunk | None,
    ) -> LLMResponse:
        """One turn over SSE: deltas go to ``on_chunk`` as they arrive, the whole reply is returned.

        The request and the read of the first chunk run under the retry policy
        (nothing has been delivered yet, so a retry is invisible); a failure
        after that is final (see :func:`~crewgraph.llm._retry.stream_broken`). Usage comes from
        ``stream_options.include_usage``; a server that rejects that option is
        asked again without it, and remembered.
        """
        client = await self._client()
        request = self._chat_request(messages, tools, params)
        request["stream"] = True
        with_usage = _STREAM_USAGE not in self._unsupported_modes
        if with_usage:
            request["stream_options"] = {"include_usage": True}
        refused_usage: list[str] = []

        async def _attempt() -> tuple[Any, Any]:
            await self.rate_limiter.acquire()
            stream = await client.chat.completions.create(**request)
            try:
                return stream, await _first_chunk(stream)
            except BaseException:
                await stream.close()
                raise

        def _no_retry(status: int | None, message: str) -> bool:
            if with_usage and _refuses_stream_options(status, message):
                refused_usage.append(message)
                return True
            return self._refuses_tools(tools, status, message)

        try:
            stream, first = await call_with_retries(
                _attempt,
                settings=self.retry_settings,
                model=self.model,
                endpoint=self.endpoint,
                emit=emit,
                no_retry=_no_retry,
            )
        except LLMError:
            if not refused_usage:
                raise
            _log.info("LLM %s: server rejected stream_options (%s); streaming without usage",
                      self.model, refused_usage[-1])
            self._unsupported_modes.add(_STREAM_USAGE)
            return await self._chat_stream(messages, tools, params, emit, on_chunk)
        assembler = StreamAssembler(self.model, self.endpoint, on_chunk)
        try:
            chunk = first
            while chunk is not None:
                assembler.feed(chunk)  # on_chunk's own errors propagate as they are
                try:
                    chunk = await stream.__anext__()
                except StopAsyncIteration:
                    chunk = None
                except Exception as exc:
                    raise stream_broken(
                        exc, model=self.model, endpoint=self.endpoint, deltas=assembler.deltas
                    ) from exc
        finally:
            await stream.close()
        return assembler.response()

    def _to_response(self, completion: Any) -> LLMResponse:
        choices = getattr(completion, "choices", None) or []
        if not choices:
            raise LLMError(f"LLM {self.model!r} returned no choices ({self.endpoint})")
        choice = choices[0]
        message = choice.message
        calls = [
            ToolCall(
                id=tc.id or f"call_{i}",
                name=tc.function.name,
                arguments=tc.function.arguments or "{}",
            )
            for i, tc in enumerate(getattr(message, "tool_calls", None) or [])
            if getattr(tc, "function", None) is not None
        ]
        return LLMResponse(
            content=message.content,
            tool_calls=calls,
            usage=usage_from_completion(completion),
            model=getattr(completion, "model", None) or self.model,
            finish_reason=choice.finish_reason,
        )

    def _modes(self) -> list[str]:
        if self.structured_mode != "auto":
            return [self.structured_mode]
        modes = [m for m in _MODE_ORDER if m not in self._unsupported_modes]
        return mode_plan(self.rate_limit_key, modes or [_MODE_ORDER[-1]])

    async def _structured(
        self,
        messages: list[dict[str, Any]],
        response_model: type[BaseModel],
        params: dict[str, Any],
        emit: Callable[[Any], None] | None,
    ) -> LLMResponse:
        """Structured call through instructor, falling back across modes on ``auto``: past a mode
        the server rejects (remembered by this client) or one whose reply held nothing
        parseable; the mode that worked is remembered for this endpoint and model."""
        modes = self._modes()
        ignored = UsageMetrics()  # replies that held nothing parseable cost tokens too
        for index, mode in enumerate(modes):
            can_fall_back = self.structured_mode == "auto" and index < len(modes) - 1
            try:
                result = await self._structured_in_mode(
                    mode, messages, response_model, params, emit, can_fall_back=can_fall_back
                )
            except NoStructuredReply as exc:
                _log.info("LLM %s: %s; trying the next mode", self.model, exc)
                ignored = ignored + exc.usage
                continue
            if result is not None:
                remember_mode(self.rate_limit_key, mode)
                result.usage = ignored + result.usage
                return result
            self._unsupported_modes.add(mode)
        raise LLMError(f"LLM {self.model!r}: no structured-output mode left to try")  # pragma: no cover

    async def _structured_in_mode(
        self,
        mode: str,
        messages: list[dict[str, Any]],
        response_model: type[BaseModel],
        params: dict[str, Any],
        emit: Callable[[Any], None] | None,
        *,
        can_fall_back: bool,
    ) -> LLMResponse | None:
        """One mode's attempt; None when the server rejected the mode and a fallback exists."""
        client = await self._client()
        await preload("instructor")
        rejected = is_tools_rejection if mode == "tools" else is_response_format_rejection
        refusals: list[str] = []

        async def _attempt() -> Any:
            await self.rate_limiter.acquire()
            return await create_structured(
                client,
                mode=mode,
                model=self.model,
                messages=messages,
                response_model=response_model,
                params=params,
                validation_retries=self.validation_retries,
                can_fall_back=can_fall_back,
            )

        def _no_retry(status: int | None, message: str) -> bool:
            if can_fall_back and mode != "json" and rejected(status, message):
                refusals.append(message)
                return True
            return False

        try:
            parsed, usage, completion = await call_with_retries(
                _attempt,
                settings=self.retry_settings,
                model=self.model,
                endpoint=self.endpoint,
                emit=emit,
                no_retry=_no_retry,
            )
        except LLMError:
            if refusals:
                _log.info("LLM %s: server rejected %s mode (%s); falling back",
                          self.model, mode, refusals[-1])
                return None
            raise
        choice = (getattr(completion, "choices", None) or [None])[0]
        return LLMResponse(
            content=parsed.model_dump_json(),
            parsed=parsed,
            usage=usage,
            model=getattr(completion, "model", None) or self.model,
            finish_reason=getattr(choice, "finish_reason", None),
        )

    def __repr__(self) -> str:
        base = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"LLM(model={self.requested_model!r}{base})"


_STREAM_USAGE = "stream_usage"
"""Key in ``_unsupported_modes`` once a server has rejected ``stream_options``."""


def _refuses_stream_options(status: int | None, message: str) -> bool:
    """The server does not know ``stream_options`` (older OpenAI-compatible servers say 400/422)."""
    return status in (400, 422) and "stream_options" in message.lower()


async def _first_chunk(stream: Any) -> Any:
    """The stream's first chunk (None if it is empty), with transport errors as openai errors.

    The SDK raises raw transport errors (a reset, a read timeout) while a
    stream is read; turned into ``APIConnectionError``/``APITimeoutError`` they
    are classified, and retried, like the same failure during the request.
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
        raise openai.APIConnectionError(message=f"{type(exc).__name__}: {exc}", request=request) from exc

