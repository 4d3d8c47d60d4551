"""Run a CrewAI-style ``call()``-only ``BaseLLM`` behind crewgraph's ``acall`` contract.

CrewAI documents custom models as a ``BaseLLM`` subclass with a synchronous
``call(messages, tools=None, callbacks=None, available_functions=None)``
that returns the reply text. The engine (agent steps, flows' crews, memory
analysis, planning) awaits ``acall``, so the base class's ``acall`` comes
here: ``call`` runs in a worker thread (a blocking ``requests.post`` must not
stall the run's other tasks), and what it returns becomes an ``LLMResponse``:

- a ``str`` is the answer text;
- an ``LLMResponse`` is taken as is;
- a list of tool calls (OpenAI dicts or SDK objects), or an assistant message
  / whole completion dict carrying ``tool_calls``, becomes native tool calls
  that the agent step runs as tool nodes (CrewAI's contract when
  ``available_functions`` is None: hand the calls back to the executor);
- an instance of the requested ``response_model`` is the parsed answer.

Structured output (``response_model``) is asked for in the prompt: the JSON
schema is appended as a system message, the text is parsed with
:func:`~crewgraph.llm.structured.parse_model_output` (which repairs common
damage), and a reply that does not validate is sent back with the error, up
to :data:`VALIDATION_RETRIES` times. A custom client reports no token usage:
each reply counts as one request with zero tokens.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from crewgraph.errors import LLMError, StructuredOutputError
from crewgraph.llm.types import LLMResponse, LLMText, ToolCall, ToolSpec
from crewgraph.outputs import UsageMetrics

if TYPE_CHECKING:
    from crewgraph.llm.base import BaseLLM

__all__ = ["VALIDATION_RETRIES", "acall_via_call", "parse_reply", "to_response"]

VALIDATION_RETRIES = 2
"""Times a structured reply that fails validation is sent back to a custom ``call()``."""

_SCHEMA_PROMPT = (
    "Answer with a single JSON object, and nothing else, that matches this JSON schema:\n{schema}"
)
_FIX_PROMPT = "That answer could not be used: {error}\nAnswer again with only the corrected JSON object."


async def acall_via_call(
    llm: BaseLLM,
    messages: list[dict[str, Any]],
    *,
    tools: list[ToolSpec] | None,
    response_model: type[BaseModel] | None,
) -> LLMResponse:
    """One turn through ``llm.call`` (in a worker thread), as an ``LLMResponse``."""
    offered = [spec.to_openai() for spec in tools] if tools else None
    if response_model is None:
        result = await asyncio.to_thread(_invoke, llm, list(messages), offered, None)
        return to_response(llm, result, response_model=None)
    conversation = [*messages, {"role": "system", "content": _SCHEMA_PROMPT.format(
        schema=json.dumps(response_model.model_json_schema()))}]
    for attempt in range(VALIDATION_RETRIES + 1):
        result = await asyncio.to_thread(_invoke, llm, list(conversation), offered, response_model)
        response = to_response(llm, result, response_model=response_model)
        if response.parsed is not None or response.tool_calls:
            return response
        try:
            response.parsed = parse_reply(response.content, response_model)
            return response
        except StructuredOutputError as exc:
            if attempt == VALIDATION_RETRIES:
                raise
            conversation += [
                {"role": "assistant", "content": response.content or ""},
                {"role": "user", "content": _FIX_PROMPT.format(error=exc)},
            ]
    raise AssertionError("unreachable")  # pragma: no cover


def parse_reply(text: str | None, response_model: type[BaseModel]) -> BaseModel:
    """``text`` validated into ``response_model`` (common damage repaired), else ``StructuredOutputError``."""
    from crewgraph.llm.structured import parse_model_output

    return parse_model_output(text, response_model)


def _invoke(
    llm: BaseLLM,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    response_model: type[BaseModel] | None,
) -> Any:
    """Call ``llm.call`` with the arguments its signature takes (CrewAI's documented one has no **kwargs)."""
    kwargs: dict[str, Any] = {"tools": tools, "callbacks": None, "available_functions": None}
    if response_model is not None:
        kwargs["response_model"] = response_model
    try:
        params: Mapping[str, inspect.Parameter] = inspect.signature(llm.call).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        params = {}
    if params and not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    if "tools" not in kwargs and tools:
        raise LLMError(
            f"{type(llm).__name__}.call() takes no 'tools' argument, but it was offered tools; "
            "add tools=None to its signature or return False from supports_function_calling()"
        )
    return llm.call(messages, **kwargs)


def to_response(llm: BaseLLM, result: Any, *, response_model: type[BaseModel] | None) -> LLMResponse:
    """What a custom ``call()`` returned, as an ``LLMResponse`` (a clear error for anything else)."""
    usage = UsageMetrics(successful_requests=1)
    model = getattr(llm, "model", None) or type(llm).__name__
    if isinstance(result, LLMResponse):
        return result
    if isinstance(result, LLMText):  # another client's call() passed on: keep its whole turn
        return result.response
    if isinstance(result, str):
        return LLMResponse(content=result, usage=usage, model=model, finish_reason="stop")
    if response_model is not None and isinstance(result, BaseModel):
        if not isinstance(result, response_model):
            result = response_model.model_validate(result.model_dump())
        return LLMResponse(content=result.model_dump_json(), parsed=result, usage=usage, model=model)
    if isinstance(result, dict):
        return _from_message(llm, _message_of(result), usage, model)
    if isinstance(result, list | tuple) and result:
        calls = [_tool_call(llm, item, i) for i, item in enumerate(result)]
        return LLMResponse(tool_calls=calls, usage=usage, model=model, finish_reason="tool_calls")
    what = "None" if result is None else type(result).__name__
    raise LLMError(
        f"{type(llm).__name__}.call() returned {what}; it must return the reply text (str), "
        "a list of tool calls, or an OpenAI-style assistant message dict"
    )


def _message_of(result: dict[str, Any]) -> dict[str, Any]:
    """The assistant message of a completion dict (``choices[0].message``) or the dict itself."""
    choices = result.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            return message
    return result


def _from_message(llm: BaseLLM, message: dict[str, Any], usage: UsageMetrics, model: str) -> LLMResponse:
    content = message.get("content")
    raw_calls = message.get("tool_calls") or []
    if content is not None and not isinstance(content, str):
        raise LLMError(f"{type(llm).__name__}.call() returned a message whose content is "
                       f"{type(content).__name__}, not text")
    if content is None and not raw_calls:
        raise LLMError(f"{type(llm).__name__}.call() returned a message with neither content nor tool_calls")
    calls = [_tool_call(llm, item, i) for i, item in enumerate(raw_calls)]
    return LLMResponse(content=content, tool_calls=calls, usage=usage, model=model,
                       finish_reason="tool_calls" if calls else "stop")


def _tool_call(llm: BaseLLM, item: Any, index: int) -> ToolCall:
    """One tool call from an OpenAI dict, an SDK object, or a ``ToolCall``."""
    if isinstance(item, ToolCall):
        return item
    get = item.get if isinstance(item, dict) else lambda key, default=None: getattr(item, key, default)
    function = get("function")
    fget = function.get if isinstance(function, dict) else (
        lambda key, default=None: getattr(function, key, default))
    name = fget("name") if function is not None else get("name")
    arguments = fget("arguments") if function is not None else get("arguments")
    if not isinstance(name, str) or not name:
        raise LLMError(f"{type(llm).__name__}.call() returned a tool call without a function name: {item!r}")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)
    return ToolCall(id=str(get("id") or f"call_{index}"), name=name, arguments=arguments or "{}")
