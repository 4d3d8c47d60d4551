"""What a node sees when it runs: inputs, upstream outputs, services, the emitter."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from crewgraph.graph.run_state import RunState

if TYPE_CHECKING:
    from crewgraph.events.base import BaseEvent
    from crewgraph.llm.base import BaseLLM

__all__ = ["NodeContext"]


def _drop(event: BaseEvent) -> None:
    return None


_NO_RESULTS: Mapping[str, Any] = MappingProxyType({})


@dataclass(slots=True)
class NodeContext:
    """Everything a node may use. Built by the scheduler (or ``testing.run_node``).

    - ``inputs``: the kickoff inputs (for ``{placeholder}`` interpolation).
    - ``upstream``: output of each predecessor node, by node id.
    - ``results``: a read-only view of every output the run has so far, by node id
      (a sequential task's default context reads earlier tasks it has no edge from).
    - ``llm``: the default model for nodes whose own config names none.
    - ``memory``: the crew's memory, if any.
    - ``emit``: publish an event (the scheduler fills run/node ids).
    - ``state``: run-wide mutable services (tool cache, rate limiters, extras).
    - ``resume`` / ``spawned``: continuation and results of spawned nodes.
    """

    run_id: str = ""
    node_id: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)
    upstream: dict[str, Any] = field(default_factory=dict)
    results: Mapping[str, Any] = field(default_factory=lambda: _NO_RESULTS)
    llm: BaseLLM | None = None
    memory: Any = None
    emit: Callable[[BaseEvent], None] = _drop
    state: RunState = field(default_factory=RunState)
    resume: Any = None
    spawned: dict[str, Any] = field(default_factory=dict)
    attempt: int = 1
    trigger: str | None = None
    """Id of the predecessor whose firing made this node run (flows pass its output)."""

    def evolve(self, **changes: Any) -> NodeContext:
        """A copy with some fields changed (contexts are never mutated in place)."""
        return replace(self, **changes)

    def wants(self, event_type: type[BaseEvent]) -> bool:
        """Whether an event of this type would reach a handler: a node builds it only then."""
        check = getattr(self.emit, "wants", None)
        return True if check is None else bool(check(event_type))

    def output_of(self, node_id: str) -> Any:
        """The output of ``node_id`` if it has one yet: upstream first, else the run's results."""
        value = self.upstream.get(node_id)
        return value if value is not None else self.results.get(node_id)
