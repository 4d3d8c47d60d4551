"""PGSearchTool: semantic search over the rows of a PostgreSQL table (psycopg 3).

The table's rows are read once (``SELECT * FROM "table" LIMIT max_rows``, the
name quoted as an identifier, in a read-only transaction with a statement
timeout), each row written as ``column: value`` lines, and indexed in the RAG
index; searches are local after that. ``psycopg`` comes with
``pip install 'crewgraph[tools]'``; without it the crew fails at compile time
saying so.
"""

from __future__ import annotations

import importlib.util
from typing import Any, ClassVar

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.toolkit._hosted import missing_library
from crewgraph.toolkit.rag_tools import _RagBase
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["PGSearchTool", "PGSearchToolSchema"]


class PGSearchToolSchema(BaseModel):
    """Input for PGSearchTool."""

    search_query: str = Field(..., description="Mandatory semantic search query you want to use to search the database's content")


def _row_text(columns: list[str], row: tuple[Any, ...]) -> str:
    return "\n".join(f"{c}: {v}" for c, v in zip(columns, row, strict=True) if v is not None)


class PGSearchTool(_RagBase):
    """Searches one table (``table_name``) of the database at ``db_uri``."""

    name: str = "Search a database's table content"
    description: str = "A tool that can be used to semantic search a query from a database table's content."
    args_schema: type[BaseModel] = PGSearchToolSchema
    db_uri: str = Field(..., repr=False, exclude=True, description="postgresql://user:password@host:port/dbname")
    table_name: str = Field(..., min_length=1)
    max_rows: int = Field(default=10_000, ge=1)
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed to connect and to read the table")
    chunk_size: int = Field(default=1000, ge=100)
    _docs: list[str] | None = PrivateAttr(default=None)
    _field: ClassVar[str | None] = None

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        self.description = f"A tool that can be used to semantic search a query the {self.table_name!r} database table's content."

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("psycopg") is None:
            return [missing_library("PGSearchTool", "psycopg", "'crewgraph[tools]'")]
        return []

    def _rows(self) -> list[str] | ToolFailure:
        try:
            import psycopg
            from psycopg import sql
        except ImportError:
            return ToolFailure(message=missing_library("PGSearchTool", "psycopg", "'crewgraph[tools]'"), code="missing_library")
        schema, _, table = self.table_name.rpartition(".")
        ident = sql.Identifier(schema, table) if schema else sql.Identifier(table)
        query = sql.SQL("SELECT * FROM {} LIMIT {}").format(ident, sql.Literal(self.max_rows))
        try:
            with psycopg.connect(self.db_uri, connect_timeout=max(1, int(self.timeout))) as conn:
                conn.read_only = True
                with conn.cursor() as cur:
                    cur.execute(sql.SQL("SET statement_timeout = {}").format(sql.Literal(int(self.timeout * 1000))))
                    cur.execute(query)
                    columns = [d.name for d in cur.description or []]
                    return [_row_text(columns, row) for row in cur.fetchall()]
        except psycopg.OperationalError as exc:
            return ToolFailure(message=f"Could not read {self.table_name!r} from PostgreSQL: {exc}".strip(),
                               code="database_unavailable", retryable=True)
        except psycopg.Error as exc:
            return ToolFailure(message=f"PostgreSQL refused to read {self.table_name!r}: {exc}".strip(), code="database_error")

    def _run(self, search_query: str) -> str | ToolFailure:
        if self._docs is None:
            rows = self._rows()
            if isinstance(rows, ToolFailure):
                return rows
            if not rows:
                return ToolFailure(message=f"The table {self.table_name!r} has no rows.", code="empty_table")
            index = self._get_index()
            # Rows are grouped into chunks of whole rows, so a hit never cuts a row in half.
            chunks: list[str] = []
            current: list[str] = []
            for row in rows:
                if current and sum(len(r) for r in current) + len(row) > self.chunk_size:
                    chunks.append("\n\n".join(current))
                    current = []
                current.append(row)
            chunks.append("\n\n".join(current))
            self._docs = [index.add_chunks(chunks, f"postgresql table {self.table_name}")]
        hits = self._get_index().search(search_query, self._docs, limit=self.limit)
        if not hits:
            return "No relevant content found."
        return "Relevant Content:\n" + "\n\n".join(h.content for h in hits)
