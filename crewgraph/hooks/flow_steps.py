"""``PRE_STEP`` / ``POST_STEP`` around a Flow's methods (CrewAI's step points, ``kind="flow_method"``).

As CrewAI's flow runtime does, each method execution (routers included; not a method a
resumed run replays from its journal) dispatches ``PRE_STEP`` after its
``MethodExecutionStartedEvent`` and ``POST_STEP`` when it returned, before its output is
recorded, routed or handed to its listeners. ``step_name`` is the method's name and
``ctx.flow`` the flow (``crew``/``task``/``agent`` are None).

``PRE_STEP``'s ``payload`` is the call's arguments as a dict: positional ones under
``"_0"``, ``"_1"``... and keyword ones (``crewai_trigger_payload``) by name -- the same
mapping as the started event's ``params``. A hook that edits or replaces that dict changes
the call. ``POST_STEP``'s ``payload`` (and ``output``) is the method's return value; a
returned value replaces it, so a router's rewritten label is the route taken.
``HookAborted`` stops the run with its reason.
"""

from __future__ import annotations

from typing import Any

from crewgraph.hooks.points import InterceptionPoint, StepContext, adispatch, has_hooks

__all__ = ["flow_post_step", "flow_pre_step"]


def _positional(key: str) -> bool:
    return key.startswith("_") and key[1:].isdigit()


async def flow_pre_step(
    extras: dict[str, Any] | None, *, flow: Any, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call's ``(args, kwargs)`` after the ``PRE_STEP`` hooks (unchanged when none)."""
    if not has_hooks(InterceptionPoint.PRE_STEP, extras):
        return args, kwargs
    params: dict[str, Any] = {f"_{i}": arg for i, arg in enumerate(args)} | dict(kwargs)
    ctx = StepContext(payload=params, kind="flow_method", step_name=method, flow=flow)
    await adispatch(InterceptionPoint.PRE_STEP, ctx, extras=extras)
    new = ctx.payload
    if not isinstance(new, dict):
        raise TypeError(f"a PRE_STEP hook of flow method {method!r} must leave the parameters a dict "
                        f"(positional ones as '_0', '_1', ...), got {type(new).__name__}")
    keys = sorted((k for k in new if _positional(k)), key=lambda k: int(k[1:]))
    if [int(k[1:]) for k in keys] != list(range(len(keys))):
        raise ValueError(f"a PRE_STEP hook of flow method {method!r} left positional parameters "
                         f"{keys}; they must be '_0', '_1', ... without gaps")
    return tuple(new[k] for k in keys), {k: v for k, v in new.items() if not _positional(k)}


async def flow_post_step(extras: dict[str, Any] | None, *, flow: Any, method: str, result: Any) -> Any:
    """The method's result after the ``POST_STEP`` hooks (``result`` itself when none)."""
    if not has_hooks(InterceptionPoint.POST_STEP, extras):
        return result
    ctx = StepContext(payload=result, output=result, kind="flow_method", step_name=method, flow=flow)
    await adispatch(InterceptionPoint.POST_STEP, ctx, extras=extras)
    return ctx.payload
