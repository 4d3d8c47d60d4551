"""``JSONKnowledgeSource``: JSON files flattened to ``path.to.key: value`` lines.

Flattening keeps each fact with the keys that say what it is, so a chunk cut
out of a large document still reads ``products.2.price: 12.5`` rather than a
lone ``12.5``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from crewgraph.knowledge.source.base_file_knowledge_source import BaseFileKnowledgeSource

__all__ = ["JSONKnowledgeSource", "flatten_json"]


def flatten_json(value: Any, prefix: str = "") -> list[str]:
    """``key.sub: value`` per leaf (list items by index)."""
    if isinstance(value, dict):
        items: list[tuple[str, Any]] = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(str(i), v) for i, v in enumerate(value)]
    else:
        return [f"{prefix}: {value}" if prefix else str(value)]
    lines: list[str] = []
    for key, sub in items:
        lines.extend(flatten_json(sub, f"{prefix}.{key}" if prefix else key))
    return lines


class JSONKnowledgeSource(BaseFileKnowledgeSource):
    """``JSONKnowledgeSource(file_paths=["catalog.json"])``."""

    source_type: Literal["json"] = "json"

    def read_file(self, path: Path) -> str:
        raw = path.read_text(encoding="utf-8", errors="replace")
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON: line {exc.lineno}: {exc.msg}") from None
        return "\n".join(flatten_json(data))
