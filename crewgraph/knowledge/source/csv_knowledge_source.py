"""``CSVKnowledgeSource``: CSV files, one line per row with the header's names on each value.

``name: Ada, role: engineer`` keeps a row readable on its own when chunking
cuts a table apart (a bare ``Ada,engineer`` would not say what the values are).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Literal

from crewgraph.knowledge.source.base_file_knowledge_source import BaseFileKnowledgeSource

__all__ = ["CSVKnowledgeSource", "rows_as_text"]


def rows_as_text(rows: list[list[str]]) -> str:
    """The first row is the header; every other row becomes ``header: value, ...``."""
    if not rows:
        return ""
    header, body = [h.strip() for h in rows[0]], rows[1:]
    if not body:
        return ", ".join(header)
    lines = []
    for row in body:
        pairs = [f"{h}: {v}" for h, v in zip(header, row, strict=False) if str(v).strip()]
        if pairs:
            lines.append(", ".join(pairs))
    return "\n".join(lines)


class CSVKnowledgeSource(BaseFileKnowledgeSource):
    """``CSVKnowledgeSource(file_paths=["customers.csv"])`` (comma or tab separated)."""

    source_type: Literal["csv"] = "csv"

    def read_file(self, path: Path) -> str:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
        first = text.splitlines()[0] if text else ""
        dialect = "excel-tab" if "\t" in first else "excel"
        return rows_as_text(list(csv.reader(io.StringIO(text), dialect=dialect)))
