"""Plain data exchanged with a language model: messages, tool specs, tool calls, replies."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from crewgraph.outputs import UsageMetrics

__all__ = ["LLMResponse", "LLMText", "OnChunk", "StreamDelta", "ToolCall", "ToolCallDelta", "ToolSpec"]


class ToolSpec(BaseModel):
    """A tool as the model sees it: name, description and JSON-schema parameters."""

    model_config = ConfigDict(defer_build=True)

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class ToolCall(BaseModel):
    """One tool call the model asked for. ``arguments`` is the raw JSON text it sent."""

    model_config = ConfigDict(defer_build=True)

    id: str
    name: str
    arguments: str = "{}"

    def parsed_arguments(self) -> dict[str, Any]:
        """Arguments as a dict; raises ``ValueError`` naming the problem if not a JSON object."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments are not valid JSON ({exc.msg} at position {exc.pos})") from exc
        if not isinstance(value, dict):
            raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
        return value

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


class LLMResponse(BaseModel):
    """One model turn: text, tool calls, or a parsed structured object, plus its token usage."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    parsed: BaseModel | None = None
    usage: UsageMetrics = Field(default_factory=UsageMetrics)
    model: str | None = None
    finish_reason: str | None = None

    def assistant_message(self) -> dict[str, Any]:
        """The OpenAI-style assistant message that records this turn in a conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [tc.to_openai() for tc in self.tool_calls]
        return msg


class ToolCallDelta(BaseModel):
    """A piece of a tool call as it streams in.

    Servers send a call's ``id`` and ``name`` once and its JSON ``arguments``
    in fragments; the client fills ``id``/``name`` from what it has seen so
    far, so every delta says which call it belongs to. ``arguments`` is only
    the new fragment: joined in order per ``index`` they give the full text.
    """

    model_config = ConfigDict(defer_build=True)

    index: int = 0
    id: str | None = None
    name: str = ""
    arguments: str = ""


class StreamDelta(BaseModel):
    """One increment of a streamed model turn: new ``text``, or a ``tool_call`` fragment."""

    model_config = ConfigDict(defer_build=True)

    text: str = ""
    tool_call: ToolCallDelta | None = None


OnChunk: TypeAlias = Callable[[StreamDelta], None]
"""What ``BaseLLM.acall(..., on_chunk=...)`` calls with each delta, in order, on the caller's loop."""


class LLMText(str):
    """What ``llm.call(...)`` returns: the reply text, as CrewAI's ``LLM.call`` returns a ``str``.

    Ported code compares, prints and slices it like any string; it still carries the whole
    turn, so crewgraph code reads ``.content``, ``.tool_calls``, ``.parsed`` and ``.usage``
    (the :class:`LLMResponse` itself is ``.response``). A turn with only tool calls is ``""``.
    """

    response: LLMResponse

    def __new__(cls, response: LLMResponse) -> LLMText:
        text = super().__new__(cls, response.content or "")
        text.response = response
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (LLMText, (self.response,))

    @property
    def content(self) -> str | None:
        return self.response.content

    @property
    def tool_calls(self) -> list[ToolCall]:
        return self.response.tool_calls

    @property
    def parsed(self) -> BaseModel | None:
        return self.response.parsed

    @property
    def usage(self) -> UsageMetrics:
        return self.response.usage

    @property
    def model(self) -> str | None:
        return self.response.model

    @property
    def finish_reason(self) -> str | None:
        return self.response.finish_reason

    def assistant_message(self) -> dict[str, Any]:
        return self.response.assistant_message()
