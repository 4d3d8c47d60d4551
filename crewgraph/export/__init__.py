"""Exports of planned and executed graphs: Graphviz DOT/SVG/PNG/PDF, Mermaid, node-link JSON.

``ExecutionGraph.to_dot()/to_mermaid()/render()/to_json()`` and the same
methods on ``RunGraph`` call into this package. DOT is built with the
``graphviz`` package (which imports nothing heavy); rendering runs Graphviz's
``dot`` program.
"""

from crewgraph.export.plan import plan_to_dot, plan_to_json, plan_to_mermaid
from crewgraph.export.render import FORMATS, ExportError, GraphvizNotFoundError, render_dot
from crewgraph.export.run import run_to_dot, run_to_json, run_to_mermaid

__all__ = [
    "FORMATS",
    "ExportError",
    "GraphvizNotFoundError",
    "plan_to_dot",
    "plan_to_json",
    "plan_to_mermaid",
    "render_dot",
    "run_to_dot",
    "run_to_json",
    "run_to_mermaid",
]
