"""Where a node step runs: the executor protocol the scheduler hands each step to.

The scheduler is the one coordinator whichever executor runs the steps:
ordering, joins, retries, timeouts, events, run records and checkpoints stay
with it. An executor only decides *where* ``node.run(ctx)`` happens. With none
(the default) the step runs in the scheduler's own event loop, with no
indirection at all -- the local path pays nothing for the option.

An executor is given to a run as ``Scheduler(executor=...)`` (``Crew(executor=...)``,
``crew.kickoff(executor=...)``, ``Flow(executor=...)``). At the start of the run the
scheduler calls ``prepare(graph, ...)`` once -- the place to connect, and to refuse,
before any token is spent, what cannot be run there -- and gets a session back; each
step then goes through ``session.run_step(node, ctx)``, and ``session.close()`` ends
the run. ``prepare`` is also given the run's *chains* (a task's nodes that run one
after another): an executor may compute a chain in one round trip, but the scheduler
still calls ``run_step`` for each step, in order, and owns what follows from it. :class:`crewgraph.distributed.RayExecutor` is the one other executor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from crewgraph.graph.context import NodeContext
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.graph.node import Node, NodeResult

__all__ = ["StepExecutor", "StepSession", "check_executor"]


@runtime_checkable
class StepSession(Protocol):
    """One run's use of an executor."""

    async def run_step(self, node: Node, ctx: NodeContext) -> NodeResult:
        """Run one step of ``node`` (one call of ``node.run``) wherever this executor runs steps."""
        ...

    def close(self) -> None:
        """The run is over (finished, failed or cancelled): release what the session holds."""
        ...


@runtime_checkable
class StepExecutor(Protocol):
    """A policy for where node steps run (see the module docstring)."""

    def prepare(
        self,
        graph: ExecutionGraph,
        *,
        state: Any = None,
        memory: Any = None,
        llm: Any = None,
        chains: Mapping[str, str] | None = None,
    ) -> StepSession:
        """Start a run of ``graph``: connect, check what the steps need, return the session.

        ``chains`` (node id -> the node of the same task that runs right after it, only
        because of it) lets an executor that pays per step compute a chain's steps in one
        go; it must still answer each ``run_step`` call as that step alone would."""
        ...


def check_executor(executor: Any, where: str) -> Any:
    """``executor`` if it is None or a StepExecutor, else a TypeError naming ``where``."""
    if executor is None or isinstance(executor, StepExecutor):
        return executor
    raise TypeError(
        f"{where}: executor must be a step executor such as crewgraph.distributed.RayExecutor(...), "
        f"got {type(executor).__name__}"
    )
