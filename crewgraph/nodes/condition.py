"""``condition`` and ``task_result``: how a ``ConditionalTask`` runs or is skipped.

A conditional task's chain sits behind a ``condition`` node that calls
``condition(previous task's output)``. True: route ``run`` fires the chain.
False: route ``skip`` fires the task's ``task_result`` node directly with
CrewAI's skipped output (an empty ``raw``), and the chain's nodes stay
unrun (the run graph marks them ``skipped``). Either way ``task_result``
(mode ``any_once``) hands the task's output on, so later tasks and the crew
output read one node whichever way it went.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import ConfigurationError
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.reads import Reads
from crewgraph.outputs import OutputFormat, TaskOutput

__all__ = ["RUN", "SKIP", "ConditionNode", "TaskResultNode", "is_skipped"]

RUN = "run"
SKIP = "skip"


@dataclass(frozen=True, kw_only=True)
class ConditionNode(Node):
    """Decides whether a conditional task runs, from the previous task's output."""

    kind: ClassVar[str] = "condition"

    condition: Callable[[Any], Any]
    previous: str
    task_name: str
    description: str
    expected_output: str = ""
    agent_role: str = ""

    def reads(self) -> Reads:
        """The previous task's output, whole (the user's condition gets it), upstream or not."""
        return Reads(outputs=(self.previous,))

    async def run(self, ctx: NodeContext) -> NodeResult:
        previous = ctx.output_of(self.previous)
        try:
            if inspect.iscoroutinefunction(self.condition):
                verdict = await self.condition(previous)
            else:
                verdict = await asyncio.to_thread(self.condition, previous)
        except Exception as exc:
            raise ConfigurationError(
                f"the condition of conditional task {interpolate(self.task_name, ctx.inputs)!r} raised {type(exc).__name__}: {exc}"
            ) from exc
        if verdict:
            return NodeResult(output=None, route=RUN, info={"condition": True})
        skipped = TaskOutput(
            description=interpolate(self.description, ctx.inputs),
            name=interpolate(self.task_name, ctx.inputs),
            expected_output=interpolate(self.expected_output, ctx.inputs),
            raw="",
            agent=interpolate(self.agent_role, ctx.inputs),
            output_format=OutputFormat.RAW,
        )
        return NodeResult(output=skipped, route=SKIP, info={"condition": False, "skipped": True})

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, condition=getattr(self.condition, "__name__", repr(self.condition)))
        return d


@dataclass(frozen=True, kw_only=True)
class TaskResultNode(Node):
    """A conditional task's output: its chain's final output, or the skipped output."""

    kind: ClassVar[str] = "task_result"

    task_name: str

    async def run(self, ctx: NodeContext) -> NodeResult:
        output = ctx.upstream.get(ctx.trigger) if ctx.trigger is not None else None
        if output is None:
            output = next((o for o in ctx.upstream.values() if isinstance(o, TaskOutput)), None)
        return NodeResult(output=output)


def is_skipped(node: Node, output: Any) -> bool:
    """True for a ``condition`` node that skipped its task."""
    return isinstance(node, ConditionNode) and isinstance(output, TaskOutput)
