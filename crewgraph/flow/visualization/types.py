"""The shapes of a flow's structure (CrewAI's ``FlowStructure``: plain dicts, JSON-ready)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["FlowStructure", "NodeMetadata", "StructureEdge"]


class NodeMetadata(TypedDict, total=False):
    """One method: its kind, what triggers it, the routes a router takes, where it is defined."""

    type: str
    is_router: bool
    router_paths: list[str]
    condition_type: str | None
    trigger_methods: list[str]
    trigger_condition: dict[str, Any] | None
    method_signature: dict[str, Any]
    source_code: str
    source_lines: list[str]
    source_start_line: int
    source_file: str
    class_signature: str
    class_name: str
    class_line_number: int


class StructureEdge(TypedDict):
    """``source`` triggers ``target`` (``is_router_path``: through a router's label)."""

    source: str
    target: str
    condition_type: str | None
    is_router_path: bool


class FlowStructure(TypedDict):
    """A flow's methods (``nodes``), how they trigger each other (``edges``), and its entry points."""

    nodes: dict[str, NodeMetadata]
    edges: list[StructureEdge]
    start_methods: list[str]
    router_methods: list[str]
