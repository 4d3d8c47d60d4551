"""The engine's one way into a model: the public ``call``/``acall`` when a user overrode them.

CrewAI users wrap or mock a model by subclassing ``LLM`` (or ``BaseLLM``) and
overriding ``call()`` — or only ``acall()`` — and expect every caller (agents,
flows' crews, memory analysis, planning, reasoning, guardrails) to go through
it. The engine awaits crewgraph's native ``acall`` (messages, keyword ``tools``
as :class:`ToolSpec`, ``response_model``, ``emit``/``on_chunk``; an
``LLMResponse`` back), which the stock ``LLM`` implements directly. So before
each turn :func:`invoke` asks :func:`front_door` which method the model's class
really wants called:

- ``"native"``: crewgraph's ``acall`` contract (the stock ``LLM``, ``FakeLLM``,
  the recorders, and user clients written to that contract);
- ``"call"``: a user ``call()`` more specific than any ``acall`` — run in a
  worker thread through :func:`crewgraph.llm._custom.acall_via_call`;
- ``"acall"``: a user ``acall()`` written to CrewAI's signature (``tools`` as
  OpenAI schemas, ``callbacks``, ``available_functions``, ``from_task``,
  ``from_agent``); called with the arguments it takes, its reply (a ``str``,
  a message dict, tool calls, a model instance) turned into an ``LLMResponse``.

The answer is computed once per class. Which one a class is comes from where
``call``/``acall`` are defined in its MRO: crewgraph's own classes are native;
a user ``acall`` is CrewAI-style when its signature has one of CrewAI's
parameter names or takes ``tools`` positionally (the native form makes
``tools`` keyword-only).
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:
    from crewgraph.llm.base import BaseLLM
    from crewgraph.llm.types import LLMResponse, ToolSpec

__all__ = ["Door", "front_door", "invoke"]

Door = Literal["native", "call", "acall"]
_CREWAI_ACALL_PARAMS = frozenset({"callbacks", "available_functions", "from_task", "from_agent"})


def _owner(cls: type, name: str) -> tuple[int, type]:
    """(MRO index, class) of the class that defines ``name`` for ``cls``."""
    for index, klass in enumerate(cls.__mro__):
        if name in vars(klass):
            return index, klass
    raise AttributeError(name)  # pragma: no cover - BaseLLM defines both


def _ours(klass: type) -> bool:
    return klass.__module__.startswith("crewgraph.")


def _crewai_style(function: Any) -> bool:
    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    if _CREWAI_ACALL_PARAMS & set(params):
        return True
    tools = params.get("tools")
    return tools is not None and tools.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD


@cache
def front_door(cls: type) -> Door:
    """Which method the engine calls for a model of class ``cls`` (see the module docstring)."""
    call_at, call_owner = _owner(cls, "call")
    acall_at, acall_owner = _owner(cls, "acall")
    if not _ours(call_owner) and call_at < acall_at:
        return "call"
    if not _ours(acall_owner) and _crewai_style(acall_owner.__dict__["acall"]):
        return "acall"
    return "native"


async def invoke(
    llm: BaseLLM,
    messages: list[dict[str, Any]],
    *,
    tools: list[ToolSpec] | None = None,
    response_model: type[BaseModel] | None = None,
    from_call: bool = False,
    from_task: Any = None,
    from_agent: Any = None,
    **options: Any,
) -> LLMResponse:
    """One model turn through the method ``llm``'s class wants called, as an ``LLMResponse``.

    ``from_call`` is set by ``BaseLLM.call`` itself (a user ``call`` that calls
    ``super().call(...)`` must reach the model, not itself again). ``options``
    (``emit``, ``on_chunk``, request parameters) reach native clients only.
    The reply's usage is added to the model's :meth:`~BaseLLM.get_token_usage_summary`.
    """
    from crewgraph.llm._custom import acall_via_call

    door = front_door(type(llm))
    if door == "call" and not from_call:
        response = await acall_via_call(llm, messages, tools=tools, response_model=response_model)
    elif door == "acall":
        response = await _crewai_acall(llm, messages, tools, response_model, from_task, from_agent)
    else:
        response = await llm.acall(messages, tools=tools, response_model=response_model, **options)
    if door != "native" or not getattr(llm, "_counts_own_usage", False):
        llm._add_usage(response.usage)
    return response


async def _crewai_acall(
    llm: BaseLLM,
    messages: list[dict[str, Any]],
    tools: list[ToolSpec] | None,
    response_model: type[BaseModel] | None,
    from_task: Any,
    from_agent: Any,
) -> LLMResponse:
    """A CrewAI-style ``acall`` override, with the arguments its signature takes."""
    from crewgraph.llm._custom import parse_reply, to_response

    offered: dict[str, Any] = {
        "tools": [spec.to_openai() for spec in tools] if tools else None,
        "callbacks": None,
        "available_functions": None,
        "from_task": from_task,
        "from_agent": from_agent,
        "response_model": response_model,
    }
    params = inspect.signature(llm.acall).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        offered = {k: v for k, v in offered.items() if k in params}
    result = await llm.acall(list(messages), **offered)
    response = to_response(llm, result, response_model=response_model)
    if response_model is not None and response.parsed is None and not response.tool_calls:
        response.parsed = parse_reply(response.content, response_model)
    return response
