"""The shared body of the table search tools (PGSearchTool, MySQLSearchTool): rows in, passages out.

A subclass only reads its table (``_rows``: each row as ``column: value``
lines, or a ToolFailure); this base indexes the rows once, in chunks of whole
rows so a hit never cuts a row in half, and answers later searches from the
local RAG index.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, PrivateAttr

from crewgraph.toolkit.rag_tools import _RagBase
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["TableSearchBase", "row_text"]


def row_text(columns: list[str], row: tuple[Any, ...] | list[Any]) -> str:
    """One row as ``column: value`` lines (NULLs left out)."""
    return "\n".join(f"{c}: {v}" for c, v in zip(columns, row, strict=True) if v is not None)


class TableSearchBase(_RagBase):
    """Semantic search over one table's rows, read once (``SELECT * ... LIMIT max_rows``)."""

    table_name: str = Field(..., min_length=1)
    max_rows: int = Field(default=10_000, ge=1)
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed to connect and to read the table")
    chunk_size: int = Field(default=1000, ge=100)
    _docs: list[str] | None = PrivateAttr(default=None)
    _field: ClassVar[str | None] = None
    _engine: ClassVar[str] = "the database"

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        self.description = f"A tool that can be used to semantic search a query the {self.table_name!r} database table's content."

    def _rows(self) -> list[str] | ToolFailure:
        raise NotImplementedError

    def _run(self, search_query: str) -> str | ToolFailure:
        if self._docs is None:
            rows = self._rows()
            if isinstance(rows, ToolFailure):
                return rows
            if not rows:
                return ToolFailure(message=f"The table {self.table_name!r} has no rows.", code="empty_table")
            chunks: list[str] = []
            current: list[str] = []
            for row in rows:
                if current and sum(len(r) for r in current) + len(row) > self.chunk_size:
                    chunks.append("\n\n".join(current))
                    current = []
                current.append(row)
            chunks.append("\n\n".join(current))
            self._docs = [self._get_index().add_chunks(chunks, f"{self._engine} table {self.table_name}")]
        hits = self._hits(search_query, self._docs)
        if not hits:
            return "No relevant content found."
        return "Relevant Content:\n" + "\n\n".join(h.content for h in hits)
