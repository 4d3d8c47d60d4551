"""The plan part of ``Flow``: compiling it to an ExecutionGraph and drawing it.

Mixed into :class:`~crewgraph.flow.Flow`. The graph is built once per instance
(its nodes hold the instance's bound methods).
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from crewgraph.flow._spec import build_spec

if TYPE_CHECKING:
    from crewgraph.compiler.flow_compiler import FlowSpec
    from crewgraph.graph.execution_graph import ExecutionGraph

__all__ = ["PlanMixin", "announce"]


class PlanMixin:
    """``compile``, ``to_dot``, ``to_mermaid`` and ``plot``."""

    _spec: ClassVar[FlowSpec | None] = None
    _graph: ExecutionGraph | None
    if TYPE_CHECKING:
        @property
        def flow_name(self) -> str: ...

    def compile(self) -> ExecutionGraph:
        """The flow's plan (validated; built once per instance, bound to its methods)."""
        if self._graph is None:
            from crewgraph.compiler.flow_compiler import compile_flow

            spec = type(self)._spec or build_spec(type(self), self.flow_name)
            self._graph = compile_flow(spec, bind=lambda m: types.MethodType(m.fn, self))
        return self._graph

    def to_dot(self, **options: Any) -> str:
        """Graphviz DOT text of the flow (routers as diamonds, labels on route edges)."""
        return self.compile().to_dot(**options)

    def to_mermaid(self, **options: Any) -> str:
        """Mermaid flowchart text of the flow (routers as rhombi, labels on route edges)."""
        return self.compile().to_mermaid(**options)

    def plot(
        self, filename: str | Path = "flow.svg", show: bool = False, format: str | None = None, **options: Any
    ) -> Path:
        """Render the flow with Graphviz to ``filename``: ``.html`` writes an interactive,
        self-contained page (pan, zoom, node details on click; no CDN); svg, png, pdf...
        from the suffix otherwise (``.svg`` when there is none). ``show=True`` opens the
        result in the browser (CrewAI's order: ``plot(filename, show)``; crewgraph does not
        open a browser unless asked). Returns the written path."""
        graph = self.compile()
        announce(self, "plot")
        if (format or Path(filename).suffix.lstrip(".")).lower() == "html":
            from crewgraph.export import plan_to_json
            from crewgraph.export.html import render_html

            details = {n["id"]: n for n in plan_to_json(graph)["nodes"]}
            path = render_html(graph.to_dot(**options), details, filename, self.flow_name)
        else:
            path = graph.render(filename, format=format, **options)
        if show:
            import webbrowser

            webbrowser.open(path.resolve().as_uri())
        return path


def announce(flow: Any, kind: str) -> None:
    """Publish ``FlowCreatedEvent`` / ``FlowPlotEvent`` for ``flow`` (built only for a listener)."""
    from crewgraph.events import flow_events
    from crewgraph.events.bus import crewgraph_event_bus

    event_type = flow_events.FlowCreatedEvent if kind == "created" else flow_events.FlowPlotEvent
    if crewgraph_event_bus.has_handlers(event_type):
        crewgraph_event_bus.emit(flow, event_type(flow_name=flow.flow_name))
