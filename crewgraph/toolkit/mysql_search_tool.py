"""MySQLSearchTool: semantic search over the rows of a MySQL or MariaDB table (PyMySQL).

The table's rows are read once (``SELECT * FROM `table` LIMIT max_rows``, the
name quoted as an identifier, in a read-only transaction), each row written
as ``column: value`` lines, and indexed in the RAG index; searches are local
after that. PyMySQL comes with ``pip install 'crewgraph[mysql]'``; without it
the crew fails at compile time saying so.
"""

from __future__ import annotations

import importlib.util
from typing import ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import missing_library
from crewgraph.toolkit._mysql import connect_args, import_pymysql
from crewgraph.toolkit._table_search import TableSearchBase, row_text
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["MySQLSearchTool", "MySQLSearchToolSchema", "quote_mysql_identifier"]


class MySQLSearchToolSchema(BaseModel):
    """Input for MySQLSearchTool."""

    search_query: str = Field(..., description="Mandatory semantic search query you want to use to search the database's content")


def quote_mysql_identifier(name: str) -> str:
    """```db`.`table``` from ``db.table``, backquotes doubled: the name can never end the identifier."""
    return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))


class MySQLSearchTool(TableSearchBase):
    """Searches one table (``table_name``) of the database at ``db_uri`` (``mysql://user:pw@host:port/db``)."""

    name: str = "Search a database's table content"
    description: str = "A tool that can be used to semantic search a query from a database table's content."
    args_schema: type[BaseModel] = MySQLSearchToolSchema
    db_uri: str = Field(..., repr=False, exclude=True, description="Mandatory database URI: mysql://user:password@host:port/dbname")
    _engine: ClassVar[str] = "mysql"

    def config_problems(self) -> list[str]:
        problems = []
        if importlib.util.find_spec("pymysql") is None:
            problems.append(missing_library("MySQLSearchTool", "pymysql", "'crewgraph[mysql]'"))
        try:
            connect_args(self.db_uri)
        except ValueError as exc:
            problems.append(f"MySQLSearchTool: db_uri is {exc}")
        return problems

    def _rows(self) -> list[str] | ToolFailure:
        try:
            pymysql = import_pymysql("MySQLSearchTool")
            args = connect_args(self.db_uri)
        except (ImportError, ValueError) as exc:
            return ToolFailure(message=str(exc), code="invalid_configuration")
        wait = max(1, int(self.timeout))
        try:
            conn = pymysql.connect(**args, connect_timeout=wait, read_timeout=wait)
        except pymysql.err.OperationalError as exc:
            return ToolFailure(message=f"Could not connect to MySQL to read {self.table_name!r}: {exc}",
                               code="database_unavailable", retryable=True)
        try:
            with conn.cursor() as cur:
                cur.execute("START TRANSACTION READ ONLY")
                cur.execute(f"SELECT * FROM {quote_mysql_identifier(self.table_name)} LIMIT %s", (self.max_rows,))
                columns = [d[0] for d in cur.description or []]
                rows = [row_text(columns, row) for row in cur.fetchall()]
                cur.execute("ROLLBACK")
                return rows
        except pymysql.err.OperationalError as exc:
            return ToolFailure(message=f"MySQL could not read {self.table_name!r}: {exc}", code="database_error",
                               retryable=exc.args[0] in (2006, 2013) if exc.args else False)
        except pymysql.err.MySQLError as exc:
            return ToolFailure(message=f"MySQL refused to read {self.table_name!r}: {exc}", code="database_error")
        finally:
            conn.close()
