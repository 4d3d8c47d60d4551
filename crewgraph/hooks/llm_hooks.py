"""LLM call hooks: registration (CrewAI's function names) and the two calls nodes make.

``before_llm_call`` hooks run before every model call any node makes (agent
steps, guardrail judges, converters, planners), after rate limiting and before
the call's started event, so the events, the executed graph and checkpoints see
the messages as the hooks left them. ``after_llm_call`` hooks may replace the
response text. Both run inside the node: a retried node runs them again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crewgraph.hooks import _registry
from crewgraph.hooks._run import Blocked, run_chain
from crewgraph.hooks.types import LLMCallBlockedError, LLMCallHookContext

__all__ = [
    "LLMCallHookContext",
    "clear_after_llm_call_hooks",
    "clear_all_llm_call_hooks",
    "clear_before_llm_call_hooks",
    "get_after_llm_call_hooks",
    "get_before_llm_call_hooks",
    "register_after_llm_call_hook",
    "register_before_llm_call_hook",
    "run_after_llm_call_hooks",
    "run_before_llm_call_hooks",
    "unregister_after_llm_call_hook",
    "unregister_before_llm_call_hook",
]

BeforeLLMHook = Callable[[LLMCallHookContext], Any]
AfterLLMHook = Callable[[LLMCallHookContext], Any]


def register_before_llm_call_hook(hook: BeforeLLMHook) -> None:
    """Run ``hook(context)`` before every LLM call of every crew; ``False`` blocks the call."""
    _registry.add("before_llm_call", hook)


def register_after_llm_call_hook(hook: AfterLLMHook) -> None:
    """Run ``hook(context)`` after every LLM call; a returned string replaces the response."""
    _registry.add("after_llm_call", hook)


def get_before_llm_call_hooks() -> list[BeforeLLMHook]:
    return _registry.listed("before_llm_call")


def get_after_llm_call_hooks() -> list[AfterLLMHook]:
    return _registry.listed("after_llm_call")


def unregister_before_llm_call_hook(hook: BeforeLLMHook) -> bool:
    return _registry.remove("before_llm_call", hook)


def unregister_after_llm_call_hook(hook: AfterLLMHook) -> bool:
    return _registry.remove("after_llm_call", hook)


def clear_before_llm_call_hooks() -> int:
    return _registry.clear("before_llm_call")


def clear_after_llm_call_hooks() -> int:
    return _registry.clear("after_llm_call")


def clear_all_llm_call_hooks() -> tuple[int, int]:
    """Remove every global LLM hook: (before count, after count)."""
    return clear_before_llm_call_hooks(), clear_after_llm_call_hooks()


def has_llm_hooks(extras: dict[str, Any] | None) -> bool:
    return bool(_registry.hooks_for("before_llm_call", extras) or _registry.hooks_for("after_llm_call", extras))


async def run_before_llm_call_hooks(context: LLMCallHookContext, extras: dict[str, Any] | None, where: str) -> None:
    """Run the before-hooks; a block becomes :class:`LLMCallBlockedError` naming ``where``."""
    hooks = _registry.hooks_for("before_llm_call", extras)
    if not hooks:
        return
    try:
        await run_chain("before_llm_call", hooks, context, before=True)
    except Blocked as blocked:
        why = f": {blocked.reason}" if blocked.reason else ""
        place = f"{where}: " if where else ""
        raise LLMCallBlockedError(
            f"{place}LLM call blocked by before_llm_call hook {blocked.source!r}{why}",
            reason=blocked.reason,
            source=blocked.source,
        ) from blocked


async def run_after_llm_call_hooks(context: LLMCallHookContext, extras: dict[str, Any] | None) -> str | None:
    """Run the after-hooks; the replacement response text, or None to keep the model's."""
    hooks = _registry.hooks_for("after_llm_call", extras)
    if not hooks:
        return None
    return await run_chain("after_llm_call", hooks, context, before=False)
