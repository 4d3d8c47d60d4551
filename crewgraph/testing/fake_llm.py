"""``FakeLLM``: a scripted model for tests, with recorded prompts and estimated usage.

Tests of agents, nodes and crews need a model that answers exactly what the
test says, can fail on cue, and remembers what it was asked. ``FakeLLM`` is
that: each call consumes the next scripted item. It implements the same
:class:`~crewgraph.llm.base.BaseLLM` contract as the real client, so code
under test cannot tell the difference.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from pydantic import BaseModel

from crewgraph._internal.shared_prompt import PromptMessage
from crewgraph.errors import CrewGraphError
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.structured import parse_model_output
from crewgraph.llm.types import LLMResponse, OnChunk, StreamDelta, ToolCall, ToolCallDelta, ToolSpec
from crewgraph.outputs import UsageMetrics
from crewgraph.testing._pieces import argument_pieces, text_pieces

__all__ = ["FakeLLM", "FakeLLMExhaustedError", "FakeReply", "FakeRequest", "FakeToolCall"]


@dataclass(frozen=True)
class FakeToolCall:
    """A tool call the fake model makes. ``args`` as a str is sent verbatim (e.g. broken JSON)."""

    name: str
    args: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        return self.args if isinstance(self.args, str) else json.dumps(self.args)


@dataclass
class FakeRequest:
    """One call the fake received: a copy of the messages, the tools and the response model.

    A task prompt that shares the run's context text (a default-context crew) is kept as a
    ref to it, as the task's ``TaskOutput.messages`` keeps it: it reads as the same dict.

    ``stream`` is True when the caller asked for the reply as a stream.
    """

    messages: list[dict[str, Any]]
    tools: list[ToolSpec]
    response_model: type[BaseModel] | None
    kwargs: dict[str, Any]
    stream: bool = False

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    @property
    def last_message(self) -> dict[str, Any] | None:
        return self.messages[-1] if self.messages else None

    @property
    def prompt(self) -> str:
        """All message contents joined, for ``assert "..." in request.prompt``."""
        return "\n".join(str(m.get("content") or "") for m in self.messages)

    def summary(self) -> str:
        lines = [f"  [{m.get('role')}] {str(m.get('content') or '')[:300]}" for m in self.messages]
        extra = []
        if self.tools:
            extra.append(f"  tools: {self.tool_names}")
        if self.response_model is not None:
            extra.append(f"  response_model: {self.response_model.__name__}")
        return "\n".join(lines + extra)


FakeReply: TypeAlias = Any
"""A script item: str | FakeToolCall | list[FakeToolCall] | dict | BaseModel |
BaseException | Callable[[FakeRequest], FakeReply]."""


class FakeLLMExhaustedError(AssertionError, CrewGraphError):
    """The script ran out: the code under test made more calls than the test expected.

    Final (``retryable=False``) and a CrewGraphError, so a crew run raises it as it is
    instead of retrying the step and wrapping it.
    """

    retryable = False


class FakeLLM(BaseLLM):
    """A :class:`BaseLLM` that replies from a script and records every request.

    Script items: a ``str`` (text reply); a :class:`FakeToolCall` or a list of
    them (tool calls in one turn); a dict ``{"content": ..., "tool_calls": [...]}``;
    a pydantic instance (``parsed`` when a ``response_model`` is requested,
    else its JSON as text); an exception instance or class (raised); or a
    callable (sync or async) taking the :class:`FakeRequest` and returning any
    of these. When
    a ``response_model`` is requested and the reply is text, it is parsed with
    :func:`~crewgraph.llm.parse_model_output` like a text-only model's output.

    When the script is exhausted ``default`` is used if given, else
    :class:`FakeLLMExhaustedError` (an ``AssertionError``) shows the request.
    Usage is estimated as ~4 characters per token (at least 1) so token
    accounting is testable. ``latency`` seconds are awaited per call. Safe for
    concurrent tasks and threads.

    ``function_calling=False`` makes :meth:`supports_function_calling` False, so
    agent steps use the text tool protocol; scripted tool calls are then
    replied as ``Action: <name>`` / ``Action Input: <JSON>`` text.

    Streaming (``on_chunk=...`` or ``stream=True``, without ``response_model``)
    is served like a real server does: text word by word, each tool call as its
    name and then argument fragments, with a yield to the event loop between
    deltas, so consumers see genuine multi-chunk streams.
    """

    def __init__(
        self,
        responses: Iterable[FakeReply] | None = None,
        *,
        model: str = "fake",
        latency: float = 0.0,
        default: FakeReply | None = None,
        function_calling: bool = True,
    ) -> None:
        self.model = model
        self.latency = latency
        self.default = default
        self.calls: list[FakeRequest] = []
        self._script: deque[FakeReply] = deque(responses or [])
        self._function_calling = function_calling
        self._lock = threading.Lock()
        self._tool_counter = 0

    def __copy__(self) -> FakeLLM:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FakeLLM:
        """A fake is one test double: copies (e.g. of an agent) share its script and calls."""
        return self

    # -- scripting ----------------------------------------------------------------
    def add(self, *responses: FakeReply) -> FakeLLM:
        """Append replies to the script; returns self for chaining."""
        with self._lock:
            self._script.extend(responses)
        return self

    @property
    def remaining(self) -> int:
        """Scripted replies not consumed yet."""
        with self._lock:
            return len(self._script)

    @property
    def call_count(self) -> int:
        with self._lock:
            return len(self.calls)

    @property
    def last_request(self) -> FakeRequest | None:
        with self._lock:
            return self.calls[-1] if self.calls else None

    def supports_function_calling(self) -> bool:
        return self._function_calling

    # -- the call -------------------------------------------------------------------
    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        on_chunk: OnChunk | None = kwargs.get("on_chunk")
        request = FakeRequest(
            # a task prompt that shares the run's context text is kept as a ref to it
            messages=[m.retained() if type(m) is PromptMessage else dict(m) for m in messages],
            tools=list(tools or []),
            response_model=response_model,
            kwargs={k: v for k, v in kwargs.items() if k not in ("emit", "on_chunk", "stream")},
            stream=response_model is None and (on_chunk is not None or bool(kwargs.get("stream"))),
        )
        with self._lock:
            self.calls.append(request)
            number = len(self.calls)
            item = self._script.popleft() if self._script else self.default
        if item is None:
            raise FakeLLMExhaustedError(
                f"FakeLLM({self.model!r}) script is exhausted: call #{number} has no scripted "
                f"reply (add more responses or pass default=...). The request was:\n"
                f"{request.summary()}"
            )
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        while callable(item) and not isinstance(item, (type, BaseModel)):
            item = item(request)
            if inspect.isawaitable(item):
                item = await item
        response = self._build(item, request, sum(len(str(m.get("content") or "")) for m in messages))
        if request.stream and on_chunk is not None:
            await _stream(response, on_chunk)
        return response

    def _build(self, item: FakeReply, request: FakeRequest, prompt_chars: int) -> LLMResponse:
        if isinstance(item, BaseException) or (
            isinstance(item, type) and issubclass(item, BaseException)
        ):
            raise item
        content: str | None = None
        calls: list[FakeToolCall] = []
        parsed: BaseModel | None = None
        if isinstance(item, str):
            content = item
        elif isinstance(item, FakeToolCall):
            calls = [item]
        elif isinstance(item, list) and all(isinstance(c, FakeToolCall) for c in item):
            calls = list(item)
        elif isinstance(item, dict):
            content = item.get("content")
            calls = [_as_tool_call(c) for c in item.get("tool_calls") or []]
        elif isinstance(item, BaseModel):
            if request.response_model is not None:
                parsed = (
                    item
                    if isinstance(item, request.response_model)
                    else request.response_model.model_validate(item.model_dump())
                )
            content = item.model_dump_json()
        else:
            raise TypeError(f"FakeLLM cannot reply with {type(item).__name__}: {item!r}")
        if request.response_model is not None and parsed is None and not calls:
            parsed = parse_model_output(content, request.response_model)
        if calls and not self._function_calling:
            # A model without tool calling can only *write* a call: the text protocol's format.
            content, calls = _as_action_text(content, calls), []
        tool_calls = [self._tool_call(c) for c in calls]
        return LLMResponse(
            content=content,
            tool_calls=tool_calls,
            parsed=parsed,
            usage=_estimate_usage(prompt_chars, content, tool_calls),
            model=self.model,
            finish_reason="tool_calls" if tool_calls else "stop",
        )

    def _tool_call(self, call: FakeToolCall) -> ToolCall:
        with self._lock:
            self._tool_counter += 1
            number = self._tool_counter
        return ToolCall(id=call.id or f"call_{number}", name=call.name, arguments=call.arguments_json())


async def _stream(response: LLMResponse, on_chunk: OnChunk) -> None:
    """Deliver ``response`` as deltas, yielding to the loop between them as a network read would."""
    for piece in text_pieces(response.content or ""):
        on_chunk(StreamDelta(text=piece))
        await asyncio.sleep(0)
    for index, call in enumerate(response.tool_calls):
        on_chunk(StreamDelta(tool_call=ToolCallDelta(index=index, id=call.id, name=call.name)))
        for piece in argument_pieces(call.arguments):
            on_chunk(StreamDelta(tool_call=ToolCallDelta(index=index, id=call.id, name=call.name, arguments=piece)))
        await asyncio.sleep(0)


def _as_action_text(content: str | None, calls: list[FakeToolCall]) -> str:
    """Scripted tool calls as a text-protocol model writes them (``Action:``/``Action Input:``),
    so one script drives an agent whether or not the fake does function calling."""
    actions = [f"Action: {call.name}\nAction Input: {call.arguments_json()}" for call in calls]
    return "\n".join([content, *actions] if content else actions)


def _as_tool_call(value: Any) -> FakeToolCall:
    if isinstance(value, FakeToolCall):
        return value
    if isinstance(value, dict):
        args = value.get("args", value.get("arguments")) or {}
        return FakeToolCall(name=value["name"], args=args, id=value.get("id"))
    if isinstance(value, tuple) and len(value) == 2:
        return FakeToolCall(name=value[0], args=value[1])
    raise TypeError(f"not a tool call: {value!r}")


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _estimate_usage(prompt_chars: int, content: str | None, calls: list[ToolCall]) -> UsageMetrics:
    prompt = max(1, prompt_chars // 4)
    completion = _tokens((content or "") + "".join(c.name + c.arguments for c in calls))
    return UsageMetrics(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        successful_requests=1,
    )

