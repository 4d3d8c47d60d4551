"""The LLM contract every model client (real, fake, recorded, user-written) implements.

Nodes only ever talk to :class:`BaseLLM`: ``acall`` for one model turn with
optional tools or a structured ``response_model``. A client implements
either side of the contract:

- ``acall`` (crewgraph's native form, returning an ``LLMResponse``), as the
  real client :class:`crewgraph.llm.LLM` and ``crewgraph.testing.FakeLLM`` do;
- or only ``call(messages, tools=None, callbacks=None, available_functions=None)``,
  CrewAI's documented custom-LLM pattern, returning a string. The default
  ``acall`` then runs ``call`` in a worker thread (so a blocking HTTP client
  does not stall the run's event loop) and turns what it returned into an
  ``LLMResponse`` (see :mod:`crewgraph.llm._custom`).
"""

from __future__ import annotations

from abc import ABC
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from crewgraph.llm.types import LLMResponse, ToolSpec
    from crewgraph.outputs import UsageMetrics

__all__ = ["DEFAULT_CONTEXT_WINDOW", "BaseLLM"]

DEFAULT_CONTEXT_WINDOW = 4096
"""What ``get_context_window_size()`` answers when a client does not know better (CrewAI's default)."""


class BaseLLM(ABC):  # noqa: B024 - call() or acall(), either one: checked in __new__
    """Abstract model client. Subclasses implement :meth:`acall` or :meth:`call` (at least one).

    ``__init__(model, temperature=None, stop=None, **kwargs)`` matches CrewAI's
    ``BaseLLM``: custom clients call ``super().__init__(model=..., temperature=...)``.
    Keywords it does not know are kept in ``additional_params`` for the
    subclass (they are the subclass's own configuration).
    """

    model: str = "unknown"
    temperature: float | None = None
    top_p: float | None = None
    n: int | None = None
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    max_tokens: int | float | None = None
    api_key: str | None = None
    base_url: str | None = None
    provider: str | None = None
    stream: bool | None = None
    llm_type: str = "base"
    is_litellm: bool = False
    prefer_upload: bool = False
    _counts_own_usage = False
    """True for clients that add their replies' usage to :meth:`get_token_usage_summary` themselves."""

    def __new__(cls, *args: Any, **kwargs: Any) -> BaseLLM:
        if cls.acall is BaseLLM.acall and cls.call is BaseLLM.call:
            raise TypeError(
                f"{cls.__name__} must implement call(messages, tools=None, callbacks=None, "
                "available_functions=None) or async acall(messages, *, tools=None, response_model=None)"
            )
        return super().__new__(cls)

    def __init__(
        self,
        model: str | None = None,
        temperature: float | None = None,
        stop: list[str] | str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        provider: str = "openai",
        prefer_upload: bool = False,
        is_litellm: bool = False,
        additional_params: dict[str, Any] | None = None,
        top_p: float | None = None,
        n: int | None = None,
        seed: int | None = None,
        presence_penalty: float | None = None,
        frequency_penalty: float | None = None,
        max_tokens: int | float | None = None,
        stream: bool | None = None,
        llm_type: str = "base",
        **kwargs: Any,
    ) -> None:
        """CrewAI's ``BaseLLM`` fields, kept for the subclass to use (a custom client sends what
        it wants); keywords it does not know go into ``additional_params``, as CrewAI's do."""
        if model is not None:
            if not isinstance(model, str) or not model.strip():
                raise ValueError(f"{type(self).__name__}: model must be a non-empty string, got {model!r}")
            self.model = model
        self.temperature = temperature
        self.stop: list[str] = [stop] if isinstance(stop, str) else list(stop or [])
        given = {"api_key": api_key, "base_url": base_url, "top_p": top_p, "n": n, "seed": seed,
                 "presence_penalty": presence_penalty, "frequency_penalty": frequency_penalty,
                 "max_tokens": max_tokens, "stream": stream}
        for name, value in given.items():  # None leaves a subclass's class default in place
            if value is not None:
                setattr(self, name, value)
        if provider != "openai" or type(self).provider is None:
            self.provider = provider
        if prefer_upload or is_litellm:
            self.prefer_upload, self.is_litellm = prefer_upload, is_litellm
        if llm_type != "base":
            self.llm_type = llm_type
        self.additional_params: dict[str, Any] = dict(additional_params or {})
        self.additional_params.update(kwargs)

    @property
    def stop_sequences(self) -> list[str]:
        """``stop`` under CrewAI's other name."""
        return self.stop

    @stop_sequences.setter
    def stop_sequences(self, value: list[str] | str | None) -> None:
        self.stop = [value] if isinstance(value, str) else list(value or [])

    def to_config_dict(self) -> dict[str, Any]:
        """The keywords that rebuild this client with ``LLM(**config)`` (CrewAI's): the model
        (``provider/model`` when the name has no prefix), and temperature, base URL and stop
        when they are set."""
        model = self.model if "/" in self.model or not self.provider else f"{self.provider}/{self.model}"
        config: dict[str, Any] = {"model": model}
        if self.temperature is not None:
            config["temperature"] = self.temperature
        if self.base_url is not None:
            config["base_url"] = self.base_url
        if self.stop:
            config["stop"] = list(self.stop)
        return config

    def format_text_content(self, text: str) -> dict[str, Any]:
        """``text`` as one content part of a message (the OpenAI form; a client may override)."""
        return {"type": "text", "text": text}

    def get_file_uploader(self) -> Any:
        """CrewAI's provider file-upload helper: None, crewgraph sends files inline as content
        parts (``Agent(multimodal=True)``), never through a provider's file API."""
        return None

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        """Send one conversation turn and return the model's reply.

        With ``response_model``, the reply's ``parsed`` holds a validated
        instance (or the call raises ``StructuredOutputError``). With
        ``tools``, the reply may carry ``tool_calls`` instead of text.

        Streaming is optional and never changes the return value: a client that
        can stream calls ``on_chunk`` (a :data:`~crewgraph.llm.types.OnChunk`)
        with each :class:`~crewgraph.llm.types.StreamDelta` as it arrives and
        still returns the whole reply. Clients that cannot stream ignore
        ``on_chunk``; structured calls (``response_model``) do not stream.

        The default runs a subclass's synchronous :meth:`call` in a worker thread.
        """
        from crewgraph.llm._custom import acall_via_call

        return await acall_via_call(self, messages, tools=tools, response_model=response_model)

    def call(
        self,
        messages: list[dict[str, Any]] | str,
        tools: list[Any] | None = None,
        callbacks: list[Any] | None = None,
        available_functions: dict[str, Any] | None = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Blocking form of :meth:`acall`, CrewAI's ``LLM.call``: a string is one user message.

        Returns the reply text as an :class:`~crewgraph.llm.types.LLMText` (a ``str`` that also
        carries ``.tool_calls``, ``.parsed`` and ``.usage``). ``tools`` are OpenAI-style function
        schemas (``{"type": "function", "function": {...}}``) or ``ToolSpec``s; with
        ``available_functions`` (name -> function) and a reply that calls one of them, the first
        such call is run and its result returned, as CrewAI does. ``callbacks`` (litellm-style
        loggers, see :mod:`crewgraph.llm._callbacks`) hear about this call only.
        ``from_task``/``from_agent`` say who asks (a CrewAI-style ``acall`` override receives them).

        Subclasses written to CrewAI's pattern override this instead and return
        the reply text (see the module docstring); their ``super().call(...)`` reaches the model.
        """
        msgs = [{"role": "user", "content": messages}] if isinstance(messages, str) else messages
        from datetime import datetime

        from crewgraph._internal.sync import run_sync
        from crewgraph._internal.usage_scope import record_usage
        from crewgraph.llm._call_tools import run_available_function, tool_specs
        from crewgraph.llm.front_door import invoke
        from crewgraph.llm.types import LLMText

        specs = tool_specs(tools)
        from crewgraph.llm._callbacks import check_callbacks, notify

        listeners = check_callbacks(callbacks)
        start = datetime.now()
        try:
            response = run_sync(invoke(self, msgs, tools=specs, response_model=response_model, from_call=True,
                                       from_task=from_task, from_agent=from_agent, **kwargs))
        except Exception as exc:
            notify(listeners, {"model": self.model, "messages": msgs}, None, exc, start)
            raise
        notify(listeners, {"model": self.model, "messages": msgs}, response, None, start)
        record_usage(response.usage)  # a direct call inside a flow method counts in its usage_metrics
        if available_functions and response.tool_calls:
            ran, result = run_available_function(response.tool_calls, available_functions)
            if ran:
                return result
        return LLMText(response)

    # -- usage ------------------------------------------------------------------------
    def _add_usage(self, usage: Any) -> None:
        """Count one reply's usage in :meth:`get_token_usage_summary` (the engine calls this)."""
        from crewgraph.outputs import UsageMetrics

        if isinstance(usage, UsageMetrics):
            self.__dict__["_token_usage"] = self.get_token_usage_summary() + usage

    def get_token_usage_summary(self) -> UsageMetrics:
        """Tokens and requests of every call this client answered so far (CrewAI's summary)."""
        from crewgraph.outputs import UsageMetrics

        usage = self.__dict__.get("_token_usage")
        return usage if isinstance(usage, UsageMetrics) else UsageMetrics()

    def supports_function_calling(self) -> bool:
        """Whether the model takes native ``tools`` (False: agent steps use the text tool protocol)."""
        return True

    def supports_stop_words(self) -> bool:
        """Whether the client honours ``stop`` sequences (CrewAI's hook; informational here)."""
        return True

    def supports_multimodal(self) -> bool:
        """Whether the model reads images in messages (CrewAI's check; False unless a client knows)."""
        return False

    def get_context_window_size(self) -> int:
        """Tokens the model accepts in one request (conservative default for unknown models)."""
        return DEFAULT_CONTEXT_WINDOW

    @property
    def rate_limit_key(self) -> str:
        """Key under which max_rpm limits are shared (same model + endpoint)."""
        return self.model

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"
