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
from typing import ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import missing_library
from crewgraph.toolkit._table_search import TableSearchBase, row_text
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["PGSearchTool", "PGSearchToolSchema"]


class PGSearchToolSchema(BaseModel):
    """Input for PGSearchTool."""

    search_query: str = Field(..., description="Mandatory semantic search query you want to use to search the database's content")


class PGSearchTool(TableSearchBase):
    """Searches one table (``table_name``) of the database at ``db_uri``."""

    name: str = "Search a database's table content"
    description: str = "A tool that can be used to semantic search a query from a database table's content."
    args_schema: type[BaseModel] = PGSearchToolSchema
    db_uri: str = Field(..., repr=False, exclude=True, description="postgresql://user:password@host:port/dbname")
    _engine: ClassVar[str] = "postgresql"

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
                    return [row_text(columns, row) for row in cur.fetchall()]
        except psycopg.OperationalError as exc:
            return ToolFailure(message=f"Could not read {self.table_name!r} from PostgreSQL: {exc}".strip(),
                               code="database_unavailable", retryable=True)
        except psycopg.Error as exc:
            return ToolFailure(message=f"PostgreSQL refused to read {self.table_name!r}: {exc}".strip(), code="database_error")
