"""``LLM``: the real model client, over the ``openai`` SDK and any OpenAI-compatible server.

One class serves OpenAI, Azure, Anthropic, Gemini, Groq, Mistral, DeepSeek,
OpenRouter, Together, Ollama, vLLM, llama.cpp and LM Studio, because they all
speak ``/v1/chat/completions``; :mod:`crewgraph.llm.providers` maps a model
string's prefix to its endpoint and key. The SDK, instructor and httpx are
imported on first use so that defining agents (and ``import crewgraph``)
stays fast and works without credentials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crewgraph.llm.base import BaseLLM

if TYPE_CHECKING:
    from pydantic import BaseModel

    from crewgraph.llm.interceptor import BaseInterceptor
    from crewgraph.llm.providers import Resolved
    from crewgraph.llm.structured import StructuredMode
    from crewgraph.llm.types import LLMResponse, OnChunk, ToolSpec

# The helpers below (providers, retries, rate limits, structured output, the SDK) are imported
# where they are first used: `from crewgraph import LLM` only defines this class, so it costs
# next to nothing at import time (issue 18's import budget).

__all__ = ["LLM"]

OLLAMA_BASE_URL = "http://localhost:11434/v1"
"""Ollama's OpenAI-compatible endpoint (the ``ollama`` provider's; kept here for old imports)."""
DEFAULT_TIMEOUT = 60.0
_REQUEST_PARAMS = frozenset({
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "seed", "n",
    "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs",
    "tool_choice", "parallel_tool_calls", "reasoning_effort", "user", "timeout", "response_format",
    "metadata", "store", "service_tier", "modalities", "prediction", "audio", "web_search_options",
})
_MODE_ORDER: tuple[str, ...] = ("tools", "json_schema", "json_object", "json")
"""``crewgraph.llm.structured.MODE_ORDER`` (a test keeps the two equal)."""
_CALL_OPTIONS = frozenset({"emit", "on_chunk", "stream", "callbacks", "from_task", "from_agent"})
"""Keywords of ``acall`` that steer the call itself and are never sent as request parameters."""
_REJECTED: dict[str, str] = {}
_NO_UPLOAD = "provider file uploads are not supported; files are sent inline as message content"
_NO_LITELLM = "crewgraph does not use litellm; every model is reached through the openai SDK"
_MISSING_KEY = (
    "No API key for LLM {model!r}: set the OPENAI_API_KEY environment variable "
    "(or pass api_key=...), or point base_url=... (or OPENAI_BASE_URL) at a local "
    "OpenAI-compatible server such as Ollama (http://localhost:11434/v1), vLLM, "
    "llama.cpp or LM Studio, which need no key. Shortcut: LLM(model='ollama/llama3.2')."
)


class LLM(BaseLLM):
    """A chat model reached through the ``openai`` SDK.

    ``model`` may carry a provider prefix (``groq/llama-3.1-8b-instant``,
    ``ollama/llama3.2``, ``azure/my-deployment``...): the registry in
    :mod:`crewgraph.llm.providers` picks that provider's OpenAI-compatible
    endpoint and API-key variable; ``base_url`` (or its CrewAI alias
    ``api_base``) and ``api_key`` override them. An unknown prefix is a
    ``ConfigurationError`` listing the known ones. Construction never fails for
    lack of a key; the first call does, naming the variable to set.

    ``timeout`` is the total time one HTTP attempt may take, to the last byte
    (``$CREWGRAPH_LLM_TIMEOUT``, else 60 s); ``idle_timeout`` (or
    ``$CREWGRAPH_LLM_IDLE_TIMEOUT``) makes calls stream and bounds the pause
    between chunks instead, for slow local models. ``max_retries`` counts
    retries of transient failures, ``timeout_retries`` those of timed-out
    attempts (see ``crewgraph.llm._retry``); ``retry_initial_delay``/
    ``retry_max_delay`` tune the backoff and ``retry_after_max`` caps
    server-requested waits. ``max_concurrency`` caps requests in flight to the
    endpoint (learned from timeouts when unset, see ``crewgraph.llm._slots``).
    ``max_rpm`` throttles calls with an :class:`RPMLimiter` shared by every client of the
    same model and endpoint (they draw on one provider quota).
    ``interceptor`` (a :class:`~crewgraph.llm.interceptor.BaseInterceptor`) sees and may change
    every HTTP request to the model and every reply (CrewAI's ``crewai.llms.hooks``).
    ``structured_mode`` picks how ``response_model`` is obtained (see
    :data:`crewgraph.llm.structured.StructuredMode`); ``validation_retries``
    bounds how often a validation error is fed back.

    CrewAI's request fields (``top_p``, ``n``, ``stop``, ``seed``,
    ``presence_penalty``, ``frequency_penalty``, ``logit_bias``, ``logprobs``,
    ``top_logprobs``, ``response_format``, ``reasoning_effort``,
    ``max_completion_tokens``) are attributes, sent when set as CrewAI sends them
    (:mod:`crewgraph.llm._request_fields`); ``additional_params`` and any other
    keyword (vendor options) are merged into every request. ``callbacks`` are
    litellm-style loggers told about each request (:mod:`crewgraph.llm._callbacks`).
    """

    _counts_own_usage = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        max_rpm: int | None = None,
        structured_mode: StructuredMode = "auto",
        *,
        api_base: str | None = None,
        api_version: str | None = None,
        idle_timeout: float | None = None,
        stream: bool = False,
        timeout_retries: int | None = None,
        max_concurrency: int | None = None,
        context_window_size: int | None = None,
        retry_initial_delay: float = 0.5,
        retry_max_delay: float = 10.0,
        retry_after_max: float = 60.0,
        validation_retries: int = 2,
        top_p: float | None = None,
        n: int | None = None,
        stop: str | list[str] | None = None,
        max_completion_tokens: int | None = None,
        presence_penalty: float | None = None,
        frequency_penalty: float | None = None,
        logit_bias: dict[int, float] | None = None,
        response_format: Any = None,
        seed: int | None = None,
        logprobs: int | bool | None = None,
        top_logprobs: int | None = None,
        reasoning_effort: str | None = None,
        callbacks: list[Any] | None = None,
        additional_params: dict[str, Any] | None = None,
        provider: str | None = None,
        thinking: Any = None,
        interceptor: BaseInterceptor[Any, Any] | None = None,
        prefer_upload: bool = False,
        completion_cost: float | None = None,
        is_litellm: bool = False,
        **extra_body_params: Any,
    ) -> None:
        from crewgraph.llm._clients import LoopClients
        from crewgraph.llm._retry import DEFAULT_MAX_RETRIES, RetrySettings
        from crewgraph.llm.providers import PROVIDERS, resolve, split_prefix
        from crewgraph.llm.rate_limit import shared_limiter
        from crewgraph.llm.settings import env_float, env_int

        if structured_mode not in ("auto", *_MODE_ORDER):
            raise ValueError(
                "structured_mode must be 'auto', 'tools', 'json_schema', 'json_object' or 'json', "
                f"got {structured_mode!r}"
            )
        from crewgraph.llm._callbacks import check_callbacks
        from crewgraph.llm._request_fields import check_fields

        for name, why in _REJECTED.items():
            if name in extra_body_params:
                raise ValueError(f"LLM({name}=...): {why}")
        for name, given, why in (("prefer_upload", prefer_upload, _NO_UPLOAD),
                                 ("is_litellm", is_litellm, _NO_LITELLM)):
            if given:
                raise ValueError(f"LLM({name}=...): {why}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"LLM: model must be a non-empty string, got {model!r}")
        fields = {"top_p": top_p, "n": n, "stop": stop, "max_completion_tokens": max_completion_tokens,
                  "presence_penalty": presence_penalty, "frequency_penalty": frequency_penalty,
                  "logit_bias": logit_bias, "response_format": response_format, "seed": seed,
                  "logprobs": logprobs, "top_logprobs": top_logprobs, "reasoning_effort": reasoning_effort}
        check_fields(fields)
        if provider is not None and split_prefix(model.strip())[0] is None:
            model = f"{provider}/{model.strip()}"  # CrewAI's LLM(model="gpt-4o", provider="openai")
        if base_url is not None and api_base is not None and base_url != api_base:
            raise ValueError("LLM: give base_url or api_base (its CrewAI alias), not both")
        from crewgraph.llm.interceptor import check_interceptor

        self.interceptor = check_interceptor(interceptor)
        self.requested_model = model.strip()
        self.api_version = api_version
        target = resolve(self.requested_model, base_url=base_url or api_base, api_key=api_key,
                         api_version=api_version)
        prefix, _ = split_prefix(self.requested_model)
        self.provider: str = target.provider.name if prefix in PROVIDERS else "openai"
        self.model = target.model
        # base_url/api_key keep what was given, plus a provider's own endpoint (ollama/, groq/...).
        self.base_url = base_url or api_base or (target.base_url if self.provider != "openai" else None)
        self.api_key = api_key or (target.api_key if target.provider.local else None)
        self.temperature = temperature
        self.max_tokens = max_tokens if max_tokens is not None else env_int(
            "CREWGRAPH_LLM_MAX_TOKENS", None, minimum=1)
        serving = target.provider  # Ollama & co. default to streaming with long deadlines
        self.timeout: float = timeout if timeout is not None else (
            env_float("CREWGRAPH_LLM_TIMEOUT", serving.timeout or DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT)
        if self.timeout <= 0:
            raise ValueError(f"LLM: timeout must be positive, got {timeout!r}")
        self.idle_timeout = idle_timeout if idle_timeout is not None else env_float(
            "CREWGRAPH_LLM_IDLE_TIMEOUT", serving.idle_timeout)
        self.stream = bool(stream)
        self.max_concurrency = max_concurrency if max_concurrency is not None else env_int(
            "CREWGRAPH_LLM_CONCURRENCY", None, minimum=1)
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise ValueError(f"LLM: max_concurrency must be at least 1, got {max_concurrency!r}")
        self.context_window_size = context_window_size
        self.max_rpm = max_rpm
        self.structured_mode: StructuredMode = structured_mode
        self.validation_retries = validation_retries
        for name, value in fields.items():
            setattr(self, name, value)
        self.stop = [stop] if isinstance(stop, str) else list(stop or [])
        self.thinking = thinking
        self.prefer_upload = False
        self.is_litellm = False
        self.completion_cost = completion_cost
        self.callbacks: list[Any] = check_callbacks(callbacks)
        # CrewAI keeps unknown keywords in additional_params and merges them into every request.
        self.additional_params: dict[str, Any] = {**(additional_params or {}), **extra_body_params}
        if thinking is not None:
            self.additional_params.setdefault("thinking", thinking)
        retries = max_retries if max_retries is not None else env_int(
            "CREWGRAPH_LLM_MAX_RETRIES", DEFAULT_MAX_RETRIES)
        self.retry_settings = RetrySettings(
            max_retries=DEFAULT_MAX_RETRIES if retries is None else retries,
            initial_delay=retry_initial_delay,
            max_delay=retry_max_delay,
            retry_after_max=retry_after_max,
            timeout_retries=(timeout_retries if timeout_retries is not None
                             else env_int("CREWGRAPH_LLM_TIMEOUT_RETRIES", 1) or 0),
        )
        self.rate_limiter = shared_limiter(self.rate_limit_key, max_rpm)
        self._unsupported_modes: set[str] = set(target.provider.skip_modes)
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
        from crewgraph.llm._clients import LoopClients
        from crewgraph.llm.rate_limit import shared_limiter

        self.__dict__.update(state)
        self.rate_limiter = shared_limiter(self.rate_limit_key, self.max_rpm)
        self._clients = LoopClients(self._new_client)

    # -- configuration --------------------------------------------------------
    @property
    def max_retries(self) -> int:
        return self.retry_settings.max_retries

    def target(self) -> Resolved:
        """Where calls go now: the registry's answer for this model (environment read afresh)."""
        from crewgraph.llm.providers import resolve

        return resolve(self.requested_model, base_url=self.base_url, api_key=self.api_key,
                       api_version=self.api_version)

    @property
    def endpoint(self) -> str:
        """The base URL calls go to (for messages and rate-limit keys)."""
        return self.target().endpoint

    @property
    def rate_limit_key(self) -> str:
        return f"{self.endpoint}|{self.model}"

    def supports_function_calling(self) -> bool:
        """False once the server has refused a request with tools."""
        return "tools" not in self._unsupported_modes

    def supports_stop_words(self) -> bool:
        return True

    def get_context_window_size(self) -> int:
        """``context_window_size`` if given, else the window its server was found to serve (its
        metadata or a refusal, see ``_served_window``), else what is known of the model's name
        (8192 for unknown ones)."""
        from crewgraph.llm._served_window import learned_window
        from crewgraph.llm._windows import context_window_for

        return self.context_window_size or learned_window(self.endpoint, self.model) or context_window_for(self.model)

    async def _client(self) -> Any:
        """The ``AsyncOpenAI`` client of the running event loop (see ``_clients``)."""
        from crewgraph.llm._clients import preload

        await preload("openai")
        return await self._clients.get()

    def _new_client(self) -> Any:
        from crewgraph.errors import LLMError

        target = self.target()
        if target.missing_key:
            if target.provider.name == "openai":
                raise LLMError(_MISSING_KEY.format(model=self.requested_model))
            raise LLMError(f"No API key for LLM {self.requested_model!r}: {target.missing_key}")
        from crewgraph.llm._connection import build_client

        return build_client(target, timeout=self.timeout, idle_timeout=self.idle_timeout,
                            max_concurrency=self.max_concurrency, interceptor=self.interceptor)

    async def aclose(self) -> None:
        """Close this loop's HTTP client now (it is also closed when its loop shuts down)."""
        await self._clients.aclose()

    @property
    def extra_body_params(self) -> dict[str, Any]:
        """The old name of :attr:`additional_params` (what is merged into every request)."""
        return self.additional_params

    @property
    def is_anthropic(self) -> bool:
        """Whether the model is Anthropic's (CrewAI's flag)."""
        return self.provider == "anthropic" or "claude" in self.model.lower()

    def supports_multimodal(self) -> bool:
        """Whether the model reads images (known vision families; unknown local models: False)."""
        from crewgraph.llm._windows import is_multimodal

        return is_multimodal(self.model)

    def _params(self, kwargs: dict[str, Any], *, structured: bool = False) -> dict[str, Any]:
        """Request parameters: the fields, ``additional_params``, then per-call overrides; keywords
        the SDK does not know go in ``extra_body`` (see :mod:`crewgraph.llm._request_fields`).
        A structured call leaves ``response_format`` to instructor."""
        from crewgraph.llm._request_fields import field_params

        params = field_params(self)
        extra: dict[str, Any] = {}
        for key, value in [*self.additional_params.items(), *kwargs.items()]:
            if key in _CALL_OPTIONS or callable(value) or value is None:
                continue
            if key in _REQUEST_PARAMS:
                params[key] = value
            else:
                extra[key] = value
        if "max_completion_tokens" in params:
            params.pop("max_tokens", None)  # CrewAI sends one of the two
        if structured:
            params.pop("response_format", None)
        if extra:
            params["extra_body"] = extra
        return params

    # -- calls ------------------------------------------------------------------
    async def acall(
        self,
        messages: str | list[dict[str, Any]],
        tools: list[Any] | None = None,
        callbacks: list[Any] | None = None,
        available_functions: dict[str, Any] | None = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> Any:
        """One model turn: text, native tool calls, or a validated ``response_model``.

        Returns an :class:`~crewgraph.llm.types.LLMResponse` (``.content``, ``.tool_calls``,
        ``.parsed``, ``.usage``); with ``available_functions`` and a reply that calls one of
        them, that function's result, as CrewAI's ``acall`` does. ``messages`` may be a string
        (one user message) and ``tools`` OpenAI function schemas, as in :meth:`call`.

        With both ``tools`` and ``response_model`` the model may call tools; a
        text answer is then parsed with :func:`parse_model_output`.
        ``emit`` (a callable taking an event) receives ``LLMCallRetryEvent``s.
        ``on_chunk`` (or ``stream=True``) streams the turn over SSE, calling
        ``on_chunk`` with each :class:`~crewgraph.llm.types.StreamDelta`; the
        whole reply is still returned. Calls with ``response_model`` never stream.
        With ``idle_timeout`` (or ``LLM(stream=True)``) plain and tool turns are
        streamed too, so a slow model is judged by the pause between tokens.
        ``callbacks`` (and ``LLM(callbacks=...)``) hear how the request ended
        (:mod:`crewgraph.llm._callbacks`).
        """
        from datetime import datetime

        from crewgraph.llm._call_tools import run_available_function, tool_specs
        from crewgraph.llm._callbacks import check_callbacks, notify

        msgs = [{"role": "user", "content": messages}] if isinstance(messages, str) else messages
        specs = tool_specs(tools)
        listeners = [*self.callbacks, *check_callbacks(callbacks)]
        start = datetime.now()
        try:
            response = await self._turn(msgs, specs, response_model, kwargs)
        except Exception as exc:
            if listeners:
                notify(listeners, {"model": self.model, "messages": msgs}, None, exc, start)
            raise
        self._add_usage(response.usage)
        if listeners:
            notify(listeners, {"model": self.model, "messages": msgs}, response, None, start)
        if available_functions and response.tool_calls:
            ran, result = run_available_function(response.tool_calls, available_functions)
            if ran:
                return result
        return response

    async def _turn(
        self,
        messages: list[dict[str, Any]],
        tools: list[ToolSpec] | None,
        response_model: type[BaseModel] | None,
        kwargs: dict[str, Any],
    ) -> LLMResponse:
        from crewgraph.llm.override import model_override

        override = model_override()  # --llm / $CREWGRAPH_LLM replace every model, a script's own too
        if override is not None and override is not self:
            return await override.acall(messages, tools=tools, response_model=response_model, **kwargs)
        emit: Callable[[Any], None] | None = kwargs.get("emit")
        on_chunk: OnChunk | None = kwargs.get("on_chunk")
        from crewgraph.llm.structured import parse_model_output

        params = self._params(kwargs, structured=response_model is not None)
        if response_model is not None and not tools:
            return await self._structured(messages, response_model, params, emit)
        if response_model is None and (on_chunk is not None or kwargs.get("stream")):
            return await self._chat_stream(messages, tools, params, emit, on_chunk)
        if self._streams_internally():
            response = await self._chat_stream(messages, tools, params, emit, None, internal=True)
        else:
            response = await self._chat(messages, tools, params, emit)
        if response_model is not None and not response.tool_calls:
            response.parsed = parse_model_output(response.content, response_model)
        return response

    def _streams_internally(self) -> bool:
        """Stream turns nobody watches: asked for, and the server has not refused streaming."""
        from crewgraph.llm._streaming_call import STREAM_REFUSED

        return (self.stream or self.idle_timeout is not None) and STREAM_REFUSED not in self._unsupported_modes

    async def _chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[ToolSpec] | None,
        params: dict[str, Any],
        emit: Callable[[Any], None] | None,
    ) -> LLMResponse:
        client = await self._client()
        request = self._chat_request(messages, tools, params)
        from crewgraph.llm._retry import call_with_retries


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
            # Explicit, because some servers (llama-cpp-python's function calling) ignore tools without it.
            request.setdefault("tool_choice", "auto")
        return request

    def _refuses_tools(self, tools: list[ToolSpec] | None, status: int | None, message: str) -> bool:
        """A tools rejection is final (and remembered): retrying the same request cannot help."""
        from crewgraph.llm.structured import is_tools_rejection

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
        *,
        internal: bool = False,
    ) -> LLMResponse:
        """One turn over SSE (see :mod:`crewgraph.llm._streaming_call`)."""
        from crewgraph.llm._streaming_call import chat_stream

        return await chat_stream(self, messages, tools, params, emit, on_chunk, internal=internal)

    def _to_response(self, completion: Any) -> LLMResponse:
        from crewgraph.errors import LLMError
        from crewgraph.llm.structured import usage_from_completion
        from crewgraph.llm.types import LLMResponse, ToolCall

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
        from crewgraph.llm.structured import mode_plan

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
        import logging

        from crewgraph.errors import LLMError
        from crewgraph.llm.structured import NoStructuredReply, remember_mode
        from crewgraph.outputs import UsageMetrics

        modes = self._modes()
        ignored = UsageMetrics()  # replies that held nothing parseable cost tokens too
        for index, mode in enumerate(modes):
            can_fall_back = self.structured_mode == "auto" and index < len(modes) - 1
            try:
                result = await self._structured_in_mode(
                    mode, messages, response_model, params, emit, can_fall_back=can_fall_back
                )
            except NoStructuredReply as exc:
                logging.getLogger("crewgraph.llm").info("LLM %s: %s; trying the next mode", self.model, exc)
                if exc.usage is not None:
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
        from crewgraph.llm._structured_call import structured_in_mode

        return await structured_in_mode(self, mode, messages, response_model, params, emit,
                                        can_fall_back=can_fall_back)

    def __repr__(self) -> str:
        base = f", base_url={self.base_url!r}" if self.base_url else ""
        return f"LLM(model={self.requested_model!r}{base})"


