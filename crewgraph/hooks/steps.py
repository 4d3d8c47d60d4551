"""``PRE_STEP`` / ``POST_STEP`` of a crew's tasks (CrewAI's step points, ``kind="task"``).

``PRE_STEP`` runs when a task's agent starts on it (not for a guardrail's redo): its
``payload`` is the context the agent is given (the text of the tasks it depends on, "" when
none); a hook may change it, in place of or by returning a string. ``POST_STEP`` runs when the
task's output is final (after its guardrails and structured output), before its output file,
callback and ``TaskCompletedEvent``: its ``payload`` is the ``TaskOutput``; a returned
``TaskOutput`` replaces it, a returned string replaces its ``raw``. Later tasks and the
``CrewOutput`` see the changed output. ``HookAborted`` stops the run with its reason.
"""

from __future__ import annotations

from typing import Any

from crewgraph.hooks.points import InterceptionPoint, StepContext, adispatch, has_hooks

__all__ = ["post_step", "pre_step"]


async def pre_step(extras: dict[str, Any] | None, *, task_name: str, agent_role: str, context: str,
                   task: Any = None, agent: Any = None) -> str:
    """The context after the ``PRE_STEP`` hooks (``context`` itself when there are none)."""
    if not has_hooks(InterceptionPoint.PRE_STEP, extras):
        return context
    ctx = StepContext(payload=context, kind="task", step_name=task_name, agent_role=agent_role,
                      task=task, agent=agent)
    await adispatch(InterceptionPoint.PRE_STEP, ctx, extras=extras)
    if ctx.payload is None:
        return ""
    if not isinstance(ctx.payload, str):
        raise TypeError(f"a PRE_STEP hook of task {task_name!r} must leave the context a string, "
                        f"got {type(ctx.payload).__name__}")
    return ctx.payload


async def post_step(extras: dict[str, Any] | None, output: Any, *, task: Any = None, crew: Any = None) -> None:
    """Run the ``POST_STEP`` hooks on a task's final ``output``; a replacement is copied into
    ``output`` itself, so everything that holds the output sees it."""
    if not has_hooks(InterceptionPoint.POST_STEP, extras):
        return
    name = output.name or (task.display_name() if task is not None else None)
    agent = getattr(task, "agent", None)
    ctx = StepContext(payload=output, output=output, kind="task", step_name=name, agent=agent,
                      agent_role=output.agent, task=task, crew=crew)
    await adispatch(InterceptionPoint.POST_STEP, ctx, extras=extras)
    new = ctx.payload
    if new is output:
        return
    if isinstance(new, str):
        output.raw = new
    elif isinstance(new, type(output)):
        for field in type(output).model_fields:
            setattr(output, field, getattr(new, field))
    else:
        raise TypeError(f"a POST_STEP hook of task {name!r} must return a TaskOutput or a string, "
                        f"got {type(new).__name__}")
