"""What happened to each node of a run: the data behind the executed graph."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crewgraph.graph.digraph import Digraph
from crewgraph.outputs import UsageMetrics

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["RunGraph", "RunRecord"]


@dataclass(slots=True)
class RunRecord:
    """One node's execution. ``status``: completed, failed, cancelled, skipped, restored
    (taken from a checkpoint), or pending (never started). ``parent`` is the node that
    spawned it (an agent step for its tool calls), ``None`` for planned nodes.

    ``detail`` holds what a reader wants beside the record, kept out of ``to_json()`` (the
    exports and run listings stay small): a model call's ``messages`` and ``response``, a
    spawned call's ``output``. The checkpoint store saves it cut to size (see
    :mod:`crewgraph.graph.call_records`).

    Slots: a run keeps one per node (and one per model call), so no ``__dict__`` each."""

    node_id: str
    kind: str
    label: str
    status: str = "pending"
    parent: str | None = None
    started_at: float | None = None
    duration_ms: float = 0.0
    usage: UsageMetrics = field(default_factory=UsageMetrics)
    attempts: int = 0
    executions: int = 0
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def retries(self) -> int:
        """Attempts beyond the executions; a failed node's last attempt is its failure, not a retry."""
        return max(0, self.attempts - self.executions - (1 if self.status == "failed" else 0))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.node_id,
            "kind": self.kind,
            "label": self.label,
            "status": self.status,
            "parent": self.parent,
            "started_at": self.started_at,
            "duration_ms": round(self.duration_ms, 3),
            "tokens": self.usage.total_tokens,
            "usage": self.usage.model_dump(),
            "attempts": self.attempts,
            "retries": self.retries,
            "executions": self.executions,
            "error": self.error,
            "info": self.info,
        }


class RunGraph:
    """The executed graph of one run: the plan's nodes and edges plus every spawned node
    (LLM turns are recorded in the agent step's ``info``; tool calls as child nodes joined
    by ``spawned`` edges), each with its :class:`RunRecord`.

    ``graph`` is a ``networkx.DiGraph`` whose nodes carry ``record`` (and ``node`` where
    the node object is known), built on first access over ``digraph`` (which the engine
    fills without importing networkx).
    """

    def __init__(
        self,
        run_id: str,
        name: str,
        graph: nx.DiGraph | Digraph,
        status: str = "completed",
        error: str | None = None,
        inputs: dict[str, Any] | None = None,
    ) -> None:
        self.run_id = run_id
        self.inputs: dict[str, Any] = dict(inputs or {})
        """The kickoff's inputs: the drawing fills task titles' ``{placeholders}`` with them."""
        self.name = name
        self.digraph = graph if isinstance(graph, Digraph) else Digraph.sharing(graph)
        self.status = status
        self.error = error

    @property
    def graph(self) -> nx.DiGraph:
        """The run as a ``networkx.DiGraph`` (networkx is imported on this first access); see ``digraph``."""
        return self.digraph.to_networkx()

    def __repr__(self) -> str:
        return (
            f"RunGraph(run_id={self.run_id!r}, name={self.name!r}, nodes={len(self.digraph)}, "
            f"status={self.status!r})"
        )

    def records(self) -> list[RunRecord]:
        return [data["record"] for _, data in self.digraph.nodes(data=True)]

    def record(self, node_id: str) -> RunRecord:
        rec: RunRecord = self.digraph.nodes[node_id]["record"]
        return rec

    def to_dot(self, **options: Any) -> str:
        from crewgraph.export import run_to_dot

        return run_to_dot(self, **options)

    def to_mermaid(self, **options: Any) -> str:
        """Mermaid flowchart text of what the run did (a subgraph per task, repeated calls
        collapsed), for Markdown and GitHub."""
        from crewgraph.export import run_to_mermaid

        return run_to_mermaid(self, **options)

    def render(self, path: Any, format: str | None = None, **options: Any) -> Any:
        from crewgraph.export import render_dot

        return render_dot(self.to_dot(**options), path, format=format)

    def to_json(self) -> dict[str, Any]:
        from crewgraph.export import run_to_json

        return run_to_json(self)
