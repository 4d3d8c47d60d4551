"""The node contract: small immutable objects with ``async run(ctx) -> NodeResult``.

A node holds its resolved configuration (never a pointer back to a facade such
as Crew or Flow), its retry and timeout policies as data, and nothing else.
A node that needs other work done first (an agent step asking for tools)
returns ``NodeResult(spawn=[...], resume=state)``: the scheduler runs the
spawned nodes, then calls ``run`` again with ``ctx.resume=state`` and
``ctx.spawned`` holding their results. So every ``run`` is one pure step.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.outputs import UsageMetrics

if TYPE_CHECKING:
    from crewgraph.graph.context import NodeContext

__all__ = ["Node", "NodeResult"]


@dataclass(slots=True)
class NodeResult:
    """What one step of a node produced.

    - ``output``: the node's value, handed to its successors (final steps only).
    - ``usage``: tokens this step spent.
    - ``spawn`` / ``resume``: run these nodes, then call me again with ``resume``.
    - ``route``: for routers, the label that decides which successors run.
    - ``info``: small JSON-able facts for the executed graph (iterations, model...).
    - ``pending``: the node waits for input (see the field).
    """

    output: Any = None
    usage: UsageMetrics | None = None
    spawn: list[Node] = field(default_factory=list)
    resume: Any = None
    route: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    """Set when the node must wait for outside input (a person's answer): it has no
    output, its successors do not run, and the run ends paused, resumable later."""

    @property
    def suspended(self) -> bool:
        return bool(self.spawn)


@dataclass(frozen=True, kw_only=True)
class Node(ABC):
    """Base of every node kind. Subclasses set ``kind`` and implement ``run``."""

    kind: ClassVar[str] = "node"
    plan_only: ClassVar[bool] = False
    """True for nodes that only document the plan (tool templates); never scheduled."""

    id: str
    label: str = ""
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout: TimeoutPolicy = field(default_factory=TimeoutPolicy)
    resources: tuple[tuple[str, float], ...] = ()
    """What a step needs where it runs (``(("GPU", 1.0),)``): placement for executors that
    place steps (Ray); a local run ignores it."""

    @abstractmethod
    async def run(self, ctx: NodeContext) -> NodeResult:
        """Run one step of this node."""

    @property
    def display_label(self) -> str:
        return self.label or self.id

    def describe(self) -> dict[str, Any]:
        """JSON-able facts about this node for exports (DOT tooltips, node-link JSON)."""
        return {"id": self.id, "kind": self.kind, "label": self.display_label}
