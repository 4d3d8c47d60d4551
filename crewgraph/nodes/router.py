"""``router`` node: a flow method whose return value is a label choosing what runs next.

The scheduler fires only the out-edges whose ``route`` equals the label
(``NodeResult.route``); plain ``listen`` edges (listeners of the router method
by name) always fire. The output is a :class:`Routed` pairing the label with
the router's own trigger output, because CrewAI hands that value -- not the
label -- to the label's listeners. A ``@start()`` router run at kickoff has no
trigger output: its listeners receive its return value.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, ClassVar

from crewgraph.errors import RouterLabelError
from crewgraph.graph.node import NodeResult
from crewgraph.nodes.flow_method import FlowMethodNode, Routed

__all__ = ["RouteWith", "RouterNode", "route_label"]


@dataclass(frozen=True)
class RouteWith:
    """A router's return value that also chooses what the label's listeners receive
    (``@human_feedback(emit=...)`` hands them its HumanFeedbackResult)."""

    label: Any
    payload: Any = None


def route_label(value: Any) -> str | None:
    """The label a router's return value stands for: a string as is, a (str) Enum's
    value, ``None`` for no label (then no label listener runs), else ``str(value)``."""
    if value is None or (isinstance(value, str) and not isinstance(value, Enum)):
        return value
    if isinstance(value, Enum):
        return value.value if isinstance(value.value, str) else value.name
    return str(value)


@dataclass(frozen=True, kw_only=True)
class RouterNode(FlowMethodNode):
    """A flow method returning a route label. ``labels`` are the ones it may return
    (``None`` when they could not be determined); they only document the plan."""

    kind: ClassVar[str] = "router"

    labels: tuple[str, ...] | None = None
    strict: bool = False
    """``labels`` were declared (``@router(emit=[...])``): returning another is an error."""

    def _result(self, value: Any, payload: Any, triggered: bool = True) -> NodeResult:
        if isinstance(value, RouteWith):
            value, payload = value.label, value.payload
        elif not triggered:
            # A @start() router run at kickoff has no trigger output to hand on: its
            # label's listeners receive what it returned (as CrewAI).
            payload = value
        label = route_label(value)
        if self.strict and label is not None and self.labels is not None and label not in self.labels:
            allowed = ", ".join(map(repr, self.labels))
            raise RouterLabelError(
                f"router {self.method!r} of flow {self.flow_name!r} returned {label!r}, "
                f"which is not one of the labels it declares (emit=[{allowed}])"
            )
        return NodeResult(output=Routed(label, payload), route=label, info={"route": label})

    def _reported(self, result: NodeResult) -> Any:
        return result.route

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["labels"] = list(self.labels) if self.labels is not None else None
        return d
