"""The execution-boundary hook points of a crew or flow kickoff (``crewgraph.hooks.points``).

``EXECUTION_START`` sees the inputs as given, ``INPUT`` the inputs after the before-kickoff
callbacks (what the tasks are filled with), ``OUTPUT`` the output after the after-kickoff
callbacks, and ``EXECUTION_END`` how the kickoff ended -- also when it failed (``status``
``"failed"`` and the ``error``; the error is raised afterwards either way). A hook's returned
value (or its change to ``ctx.payload``) replaces the inputs or the output. Nothing is built
when no hook is registered at a point. A crew's contexts carry ``crew``, a flow's ``flow``
(the other is None, as CrewAI's: ``ctx.crew is None`` tells a flow's kickoff apart).
"""

from __future__ import annotations

from typing import Any

from crewgraph.hooks._registry import RUN_HOOKS_KEY
from crewgraph.hooks.points import (
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    InterceptionPoint,
    OutputContext,
    adispatch,
    has_hooks,
)

__all__ = ["BoundaryHooks"]


class BoundaryHooks:
    """Dispatches one kickoff's boundary points, with the crew's own hooks after the global."""

    def __init__(self, crew: Any = None, *, flow: Any = None) -> None:
        self.crew = crew
        self.flow = flow
        own = getattr(crew, "_execution_hooks", None) if crew is not None else None
        self.extras = {RUN_HOOKS_KEY: own} if own else None

    async def start(self, inputs: dict[str, Any]) -> dict[str, Any]:
        if not has_hooks(InterceptionPoint.EXECUTION_START, self.extras):
            return inputs
        ctx = ExecutionStartContext(payload=inputs, inputs=inputs, crew=self.crew, flow=self.flow)
        await adispatch(InterceptionPoint.EXECUTION_START, ctx, extras=self.extras)
        return _inputs(ctx.payload, "EXECUTION_START")

    async def input(self, inputs: dict[str, Any]) -> dict[str, Any]:
        if not has_hooks(InterceptionPoint.INPUT, self.extras):
            return inputs
        ctx = InputContext(payload=inputs, inputs=inputs, crew=self.crew, flow=self.flow)
        await adispatch(InterceptionPoint.INPUT, ctx, extras=self.extras)
        return _inputs(ctx.payload, "INPUT")

    async def output(self, output: Any) -> Any:
        if not has_hooks(InterceptionPoint.OUTPUT, self.extras):
            return output
        ctx = OutputContext(payload=output, output=output, crew=self.crew, flow=self.flow)
        await adispatch(InterceptionPoint.OUTPUT, ctx, extras=self.extras)
        return ctx.payload

    async def end(self, output: Any) -> Any:
        if not has_hooks(InterceptionPoint.EXECUTION_END, self.extras):
            return output
        ctx = ExecutionEndContext(payload=output, output=output, crew=self.crew, flow=self.flow)
        await adispatch(InterceptionPoint.EXECUTION_END, ctx, extras=self.extras)
        return ctx.payload

    async def failed(self, error: BaseException) -> None:
        if not isinstance(error, Exception) or not has_hooks(InterceptionPoint.EXECUTION_END, self.extras):
            return
        ctx = ExecutionEndContext(payload=None, crew=self.crew, flow=self.flow, status="failed",
                                   error=error)
        await adispatch(InterceptionPoint.EXECUTION_END, ctx, extras=self.extras)


def _inputs(value: Any, point: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"a {point} hook must leave the inputs a dict, got {type(value).__name__}")
    return dict(value)
