"""``join`` node: where an ``and_`` or ``or_`` condition of a flow listener is decided.

Joins make the conditions visible in the graph (a small circle with its
``and``/``or`` edges) and map them onto the scheduler's join modes:

- ``and``: scheduler mode ``all`` -- runs once every input has fired since it
  last ran, then re-arms (CrewAI's pending set).
- ``or`` over methods only: scheduler mode ``any_once`` -- the first input
  wins, later ones are ignored for the rest of the kickoff.
- ``or`` with router labels among its inputs (a loop may come back through
  them): scheduler mode ``any`` and ``gated=True``. Then the node itself
  decides: an arrival through a label (``rearm``) always passes -- the loop
  re-entering -- while method arrivals pass only the first time. It returns
  route ``PASS`` to let its successors run, ``None`` to hold them; its out
  edges carry ``route=PASS``. That is CrewAI's fire-once-but-re-arm-on-label rule.

An ``and_`` nested in an ``or_`` counts its own arrivals (``needs``: its
inputs; scheduler mode ``any``, out edges ``route=PASS``), because when the
``or_`` fires it clears the partly met ``and_`` groups under it (``resets``):
an arrival that only completes a group begun before the ``or_`` fired must
not fire the listener again (CrewAI's rule). Groups are cleared per run.

The output is the trigger's output (a label arrival hands on the router's
payload), so the listener behind the join receives what fired it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.nodes.flow_method import flow_run_state, trigger_payload

__all__ = ["PASS", "JoinNode"]

PASS = "pass"
"""Route a gated ``or`` join returns when its listener may run."""


@dataclass(frozen=True, kw_only=True)
class JoinNode(Node):
    """An ``and``/``or`` point of a flow condition (see the module docstring)."""

    kind: ClassVar[str] = "join"

    mode: Literal["and", "or"]
    listener: str = ""
    gated: bool = False
    rearm: frozenset[str] = frozenset()
    label_preds: frozenset[str] = frozenset()
    needs: frozenset[str] = frozenset()
    """An ``and`` join that counts its own arrivals: the inputs it waits for (else empty)."""
    resets: tuple[str, ...] = ()
    """An ``or`` join: the counting ``and`` joins under it, cleared when it fires."""

    async def run(self, ctx: NodeContext) -> NodeResult:
        _, payload = trigger_payload(ctx, self.label_preds)
        if self.needs:
            arrived = flow_run_state(ctx).and_arrived.setdefault(self.id, set())
            if ctx.trigger is not None:
                arrived.add(ctx.trigger)
            if not self.needs <= arrived:
                return NodeResult(output=payload, route=None, info={"held": True})
            arrived.clear()
            return NodeResult(output=payload, route=PASS)
        if not self.gated:
            self._clear(ctx)
            return NodeResult(output=payload)
        fired = flow_run_state(ctx).or_fired
        if ctx.trigger not in self.rearm:
            if self.id in fired:
                return NodeResult(output=payload, route=None, info={"held": True})
            fired.add(self.id)
        self._clear(ctx)
        return NodeResult(output=payload, route=PASS)

    def _clear(self, ctx: NodeContext) -> None:
        if self.resets:
            arrived = flow_run_state(ctx).and_arrived
            for join_id in self.resets:
                arrived.pop(join_id, None)

    @property
    def display_label(self) -> str:
        return self.label or self.mode

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(mode=self.mode, listener=self.listener, gated=self.gated)
        if self.resets:
            d["resets"] = list(self.resets)
        return d
