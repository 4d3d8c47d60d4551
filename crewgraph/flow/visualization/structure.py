"""``build_flow_structure``: a flow's structure as data, read from the spec its graph is compiled from.

The structure is what ``@start``/``@listen``/``@router`` declare (CrewAI's
``FlowStructure``): each method with its trigger condition and a router's
labels, an edge per trigger (a label's edge runs from the router that
returns it, ``is_router_path``). A ``FlowDefinition`` is read through the Flow
class it compiles to, so both give the same structure.
``visualize_flow_structure`` draws it as one self-contained HTML page with
Graphviz (``crewgraph.export.html``), as ``Flow.plot`` does.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from crewgraph.flow.visualization.types import FlowStructure, NodeMetadata, StructureEdge

__all__ = ["build_flow_structure", "visualize_flow_structure"]


def _flow_class(flow_or_definition: Any) -> type:
    from crewgraph.flow.flow import Flow

    if isinstance(flow_or_definition, Flow):
        return type(flow_or_definition)
    if isinstance(flow_or_definition, type) and issubclass(flow_or_definition, Flow):
        return flow_or_definition
    if type(flow_or_definition).__name__ == "FlowDefinition":
        from crewgraph.flow.declarative.build import flow_class_from_definition

        built: type = flow_class_from_definition(flow_or_definition, base=Flow)
        return built
    raise TypeError("build_flow_structure() takes a Flow, a Flow class or a FlowDefinition, "
                    f"got {type(flow_or_definition).__name__}")


def _condition(trigger: Any) -> dict[str, Any] | None:
    if trigger is None:
        return None
    return {"type": "OR" if trigger.op == "or" else "AND",
            "conditions": [_condition(i) if not isinstance(i, str) else i for i in trigger.items]}


def _leaves(trigger: Any) -> list[str]:
    found: list[str] = []
    for item in trigger.items if trigger is not None else ():
        found.extend([item] if isinstance(item, str) else _leaves(item))
    return found


def _source(fn: Any, meta: NodeMetadata) -> None:
    try:
        lines, start = inspect.getsourcelines(fn)
        meta["source_lines"] = lines
        meta["source_code"] = "".join(lines)
        meta["source_start_line"] = start
        meta["source_file"] = inspect.getsourcefile(fn) or ""
    except (OSError, TypeError):
        pass  # built at run time (a declared flow): no source to show
    try:
        sig = inspect.signature(fn)
        meta["method_signature"] = {"name": fn.__name__, "params": [p for p in sig.parameters if p != "self"]}
    except (TypeError, ValueError):
        pass


def build_flow_structure(flow_or_definition: Any) -> FlowStructure:
    """The structure of a Flow (instance or class) or a ``FlowDefinition``."""
    from crewgraph.flow._spec import build_spec

    cls = _flow_class(flow_or_definition)
    spec = getattr(cls, "_spec", None) or build_spec(cls, getattr(cls, "name", None) or cls.__name__)
    names = {m.name for m in spec.methods}
    producers: dict[str, list[str]] = {}
    for m in spec.methods:
        if m.router:
            for label in m.labels:
                producers.setdefault(label, []).append(m.name)
    nodes: dict[str, NodeMetadata] = {}
    edges: list[StructureEdge] = []
    for m in spec.methods:
        meta: NodeMetadata = {
            "type": "start" if m.start else "router" if m.router else "listen",
            "is_router": m.router,
            "condition_type": None if m.trigger is None else ("OR" if m.trigger.op == "or" else "AND"),
            "trigger_methods": _leaves(m.trigger),
            "trigger_condition": _condition(m.trigger),
            "class_name": cls.__name__,
        }
        if m.router:
            meta["router_paths"] = list(m.labels)
        _source(m.fn, meta)
        nodes[m.name] = meta
        for leaf in _leaves(m.trigger):
            sources = [leaf] if leaf in names and leaf not in producers else producers.get(leaf, [])
            for source in sources:
                edges.append({"source": source, "target": m.name, "condition_type": meta["condition_type"],
                              "is_router_path": source != leaf})
    return {"nodes": nodes, "edges": edges, "start_methods": [m.name for m in spec.methods if m.start],
            "router_methods": [m.name for m in spec.methods if m.router]}


def _dot(dag: FlowStructure) -> str:
    import json

    lines = ["digraph flow {", "  rankdir=TB;", '  node [fontname="Helvetica"];']
    for name, meta in dag["nodes"].items():
        shape = "diamond" if meta.get("is_router") else "box"
        style = ', style="rounded,filled", fillcolor="#e8f1ff"' if name in dag["start_methods"] else ""
        lines.append(f"  {json.dumps(name)} [shape={shape}{style}];")
    for edge in dag["edges"]:
        attrs = ' [style=dashed]' if edge["is_router_path"] else ""
        lines.append(f"  {json.dumps(edge['source'])} -> {json.dumps(edge['target'])}{attrs};")
    lines.append("}")
    return "\n".join(lines)


def visualize_flow_structure(dag: FlowStructure, filename: str = "flow_dag.html", show: bool = True) -> str:
    """Write the structure as an interactive HTML page to ``filename`` (Graphviz needed) and
    return its path; ``show`` opens it in the browser, as CrewAI's does."""
    from crewgraph.export.html import render_html

    details = {name: {"id": name, **meta} for name, meta in dag["nodes"].items()}
    path = render_html(_dot(dag), details, Path(filename), "flow")
    if show:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())
    return str(path)
