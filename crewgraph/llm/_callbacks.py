"""``LLM(callbacks=[...])``: CrewAI's (litellm's) per-call logger callbacks.

CrewAI hands ``callbacks`` to litellm, whose loggers are objects with
``log_success_event(kwargs, response_obj, start_time, end_time)`` and
``log_failure_event(...)`` (``litellm.integrations.custom_logger.CustomLogger``),
or plain functions called on success with the same four arguments. crewgraph
calls them the same way after each request of the stock ``LLM``: ``kwargs``
holds ``model`` and ``messages`` (and ``exception`` on failure), ``response_obj``
is the completion as a dict (``id``, ``model``, ``choices[0].message``, and
``usage`` with ``prompt_tokens``/``completion_tokens``/``total_tokens``), and
the times are ``datetime``s. A callback that raises is logged, not fatal, as
litellm does.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.llm.types import LLMResponse

__all__ = ["check_callbacks", "notify"]

_log = logging.getLogger("crewgraph.llm")


def check_callbacks(callbacks: Any) -> list[Any]:
    """``callbacks`` as a list, or a TypeError naming the one that is neither a logger nor a function."""
    if callbacks is None:
        return []
    if not isinstance(callbacks, Sequence) or isinstance(callbacks, str):
        raise TypeError(f"LLM callbacks must be a list, got {type(callbacks).__name__}")
    for index, callback in enumerate(callbacks):
        if not (callable(callback) or hasattr(callback, "log_success_event")
                or hasattr(callback, "log_failure_event")):
            raise TypeError(
                f"LLM callbacks[{index}] is {callback!r:.60}: a callback is a function "
                "(kwargs, response_obj, start_time, end_time) or an object with "
                "log_success_event/log_failure_event (litellm's CustomLogger)")
    return list(callbacks)


def _completion_dict(response: LLMResponse) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in response.tool_calls
        ]
    usage = response.usage
    return {
        "model": response.model,
        "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason}],
        "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                  "total_tokens": usage.total_tokens},
    }


def notify(
    callbacks: list[Any],
    request: dict[str, Any],
    response: LLMResponse | None,
    error: BaseException | None,
    start: datetime,
) -> None:
    """Tell every callback how the request ended (success: ``response``; failure: ``error``)."""
    end = datetime.now()
    kwargs = dict(request)
    if error is not None:
        kwargs["exception"] = error
    completion = _completion_dict(response) if response is not None else None
    for callback in callbacks:
        method = getattr(callback, "log_failure_event" if error is not None else "log_success_event", None)
        if method is None and error is None and callable(callback):
            method = callback
        if method is None:
            continue
        try:
            method(kwargs, completion, start, end)
        except Exception as exc:  # a logger must not fail the call (litellm's rule too)
            _log.warning("LLM callback %r failed: %s: %s", callback, type(exc).__name__, exc)
