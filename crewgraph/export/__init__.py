"""Exports of planned and executed graphs: Graphviz DOT/SVG/PNG/PDF and node-link JSON.

``ExecutionGraph.to_dot()/render()/to_json()`` and the same methods on
``RunGraph`` call into this package. DOT text is written by hand, so
producing it imports nothing heavy; rendering runs Graphviz's ``dot``.
"""

from crewgraph.export.plan import plan_to_dot, plan_to_json
from crewgraph.export.render import FORMATS, ExportError, GraphvizNotFoundError, render_dot
from crewgraph.export.run import run_to_dot, run_to_json

__all__ = [
    "FORMATS",
    "ExportError",
    "GraphvizNotFoundError",
    "plan_to_dot",
    "plan_to_json",
    "render_dot",
    "run_to_dot",
    "run_to_json",
]
