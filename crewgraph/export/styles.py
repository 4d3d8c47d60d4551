"""How each node kind, edge kind and run status looks in Graphviz.

Shapes carry the *kind* in both the plan and the executed graph (so the two
pictures read alike); fill colour carries the kind in the plan and the
*status* in the executed graph, where "what happened" is the question.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_KIND_STYLE",
    "EDGE_STYLES",
    "FAILED_OUTLINE",
    "KIND_ORDER",
    "KIND_STYLES",
    "RETRIED_OUTLINE",
    "STATUS_COLOURS",
    "KindStyle",
    "edge_style",
    "kind_style",
    "status_colour",
]


@dataclass(frozen=True)
class KindStyle:
    shape: str
    fillcolor: str
    style: str = "filled"


KIND_STYLES: dict[str, KindStyle] = {
    "agent_step": KindStyle("box", "#cfe2ff"),
    "manager_step": KindStyle("doubleoctagon", "#b6d4fe"),
    "guardrail": KindStyle("hexagon", "#ffe0b2"),
    "convert": KindStyle("parallelogram", "#e2d9f3"),
    "tool": KindStyle("ellipse", "#fff3bf"),
    "memory_recall": KindStyle("cylinder", "#d3f0e0"),
    "memory_save": KindStyle("cylinder", "#b9e4cc"),
    "knowledge_retrieval": KindStyle("folder", "#d7f0f5"),
    "flow_method": KindStyle("box", "#e9ecef", "rounded,filled"),
    "router": KindStyle("diamond", "#f8d7da"),
    "join": KindStyle("circle", "#dee2e6"),
    "planning": KindStyle("note", "#fde2e4"),
    "reasoning": KindStyle("note", "#fcefd4"),
    "llm": KindStyle("component", "#e7f5ff"),
}
DEFAULT_KIND_STYLE = KindStyle("box", "#ffffff")
KIND_ORDER = tuple(KIND_STYLES)
"""Legend order: the kinds in the order a reader meets them."""

STATUS_COLOURS: dict[str, str] = {
    "completed": "#b7e4a8",
    "failed": "#f4a3a3",
    "cancelled": "#d9d9d9",
    "skipped": "#d9d9d9",
    "restored": "#a9c8f0",
    "running": "#fff3a6",
    "paused": "#ffd8a8",
    "warning": "#ffe066",
    "pending": "#ffffff",
}
"""Fill of a node in the executed graph by status (docs/checkpoints.md, "The executed graph").
"warning" is a completed node whose record says something was missing (``info["warning"]``:
a retrieval that found nothing, a tool that failed on every call, a recall over an empty memory)."""

FAILED_OUTLINE = "#b02a37"
"""Thick outline of a failed node, and dashed outline of a tool call whose failure was handled."""
RETRIED_OUTLINE = "#e8590c"
"""Thick orange outline of a node that succeeded only after retries (its label counts them)."""

# Default look per edge kind. ``label`` here is the default text; an edge's own
# ``label`` attribute (a router's route name) takes precedence.
EDGE_STYLES: dict[str, dict[str, str]] = {
    "order": {},
    "context": {"label": "context", "color": "#3b6fb6", "fontcolor": "#3b6fb6"},
    "guardrail": {"label": "guardrail", "color": "#c77700", "fontcolor": "#c77700"},
    "convert": {"label": "convert", "color": "#6f42c1", "fontcolor": "#6f42c1"},
    "memory": {"style": "dotted", "color": "#2e8b57"},
    "knowledge": {"style": "dotted", "color": "#1c7c8c"},
    "listen": {},
    "route": {"color": "#b02a37", "fontcolor": "#b02a37"},
    "and": {"label": "and"},
    "or": {"label": "or"},
    "may_call": {
        "style": "dashed",
        "label": "may call",
        "color": "#888888",
        "fontcolor": "#666666",
        "arrowhead": "open",
    },
    "spawned": {"style": "bold", "label": "called", "color": "#8a6d00", "fontcolor": "#8a6d00"},
}


def kind_style(kind: str) -> KindStyle:
    return KIND_STYLES.get(kind, DEFAULT_KIND_STYLE)


def status_colour(status: str) -> str:
    return STATUS_COLOURS.get(status, STATUS_COLOURS["pending"])


def edge_style(kind: str, label: object | None = None) -> dict[str, str]:
    """Attributes for an edge of ``kind``; a non-empty ``label`` overrides the default text."""
    values = dict(EDGE_STYLES.get(kind, {"label": kind}))
    if label not in (None, ""):
        values["label"] = str(label)
    return values
