"""NL2SQLTool: run the model's SQL against a database (SQLAlchemy), read-only unless allowed.

The model writes the SQL (``sql_query``); the tool runs it and returns the rows
as a list of dicts, or ``"Query ... executed successfully"`` for a statement
without rows, as CrewAI does. When the database rejects the SQL, the answer is
a :class:`ToolFailure` that carries the database's error and the tables and
columns (read once, through SQLAlchemy's inspector) so the model can correct
its query.

Read-only by default (``allow_dml=False``, unless ``CREWAI_NL2SQL_ALLOW_DML=true``):
one statement, starting with SELECT, SHOW, DESCRIBE, DESC, EXPLAIN or WITH, and
no writing statement inside a ``WITH`` body or after ``EXPLAIN ANALYZE``. The
keyword check is the first guard; the second is the database's own: on
PostgreSQL and MySQL/MariaDB the statement runs in a read-only transaction,
and on SQLite with ``PRAGMA query_only``, so a write the check misses fails.

``db_uri`` is a SQLAlchemy URL. ``postgresql://`` uses psycopg 3 and
``mysql://`` PyMySQL when their older default drivers are not installed.
SQLAlchemy comes with ``pip install 'crewgraph[sqlalchemy]'`` (PyMySQL with
``[mysql]``).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.toolkit._hosted import missing_library
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["NL2SQLTool", "NL2SQLToolInput", "check_statement", "sqlalchemy_url"]

_logger = logging.getLogger("crewgraph.toolkit.nl2sql")
_READ = {"SELECT", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "WITH"}
_WRITE = {"INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "CREATE", "TRUNCATE", "GRANT", "REVOKE", "EXEC",
          "EXECUTE", "CALL", "MERGE", "REPLACE", "UPSERT", "LOAD", "COPY", "VACUUM", "ANALYZE", "ANALYSE",
          "REINDEX", "CLUSTER", "REFRESH", "COMMENT", "SET", "RESET", "LOCK", "RENAME", "HANDLER", "DO"}
_GUIDANCE = {
    "postgresql": "Generate PostgreSQL-compatible SQL. PostgreSQL features such as ILIKE, DATE_TRUNC, "
                  "INTERVAL, and :: casts are available.",
    "sqlite": "Generate SQLite-compatible SQL. Use LOWER(column) LIKE LOWER(pattern) for case-insensitive "
              "matching, SQLite date/time functions such as strftime(), and || for string concatenation. "
              "Do not use ILIKE, DATE_TRUNC, INTERVAL, or :: casts.",
}
_LITERAL = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`(?:[^`]|``)*`")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)
_BODY_WRITE = re.compile(r"\bAS\s*(?:NOT\s+)?(?:MATERIALIZED\s*)?\(\s*(" + "|".join(
    ["INSERT", "UPDATE", "DELETE", "MERGE", "DROP", "ALTER", "CREATE", "TRUNCATE"]) + r")\b", re.I)


class NL2SQLToolInput(BaseModel):
    """Input for NL2SQLTool."""

    sql_query: str = Field(..., title="SQL Query", description="The SQL query to execute.")


def _statements(sql: str) -> list[str]:
    """The statements of ``sql``: split on semicolons outside literals and comments."""
    masked = _LITERAL.sub(lambda m: "x" * len(m.group()), _COMMENT.sub(lambda m: " " * len(m.group()), sql))
    out, start = [], 0
    for i, ch in enumerate(masked):
        if ch == ";":
            out.append(sql[start:i])
            start = i + 1
    out.append(sql[start:])
    return [s.strip() for s in out if _COMMENT.sub("", s).strip()]


def check_statement(sql: str, allow_dml: bool) -> str | None:
    """Why ``sql`` may not run (None: it may). Read-only mode allows one reading statement."""
    statements = _statements(sql)
    if not statements:
        return "NL2SQLTool received an empty SQL query."
    if allow_dml:
        return None
    if len(statements) > 1:
        return ("NL2SQLTool blocked a multi-statement query in read-only mode. "
                "Semicolons are not permitted when allow_dml=False.")
    bare = _LITERAL.sub("''", _COMMENT.sub(" ", statements[0])).strip().lstrip("(").strip()
    words = bare.split()
    command = words[0].upper() if words else ""
    hint = "To allow write operations set allow_dml=True or CREWAI_NL2SQL_ALLOW_DML=true."
    if command in _WRITE:
        return f"NL2SQLTool is configured in read-only mode and blocked a '{command}' statement. {hint}"
    if command not in _READ:
        return (f"NL2SQLTool blocked an unrecognised SQL command '{command}'. Only "
                f"{sorted(_READ - {'WITH'})} (and read-only WITH queries) are allowed in read-only mode.")
    if command == "EXPLAIN" and len(words) > 1 and words[1].strip("(").upper().rstrip(",)") in {"ANALYZE", "ANALYSE"}:
        target = next((w.upper() for w in words[2:] if w.upper().strip("(),") in _WRITE | {"SELECT", "WITH"}), "")
        if target.strip("(),") in _WRITE:
            return f"NL2SQLTool is configured in read-only mode and blocked EXPLAIN ANALYZE of a '{target}'. {hint}"
    if command == "WITH":
        inner = _BODY_WRITE.search(bare)
        if inner:
            return (f"NL2SQLTool is configured in read-only mode and blocked a writable CTE containing a "
                    f"'{inner.group(1).upper()}' statement. {hint}")
        depth, tail = 0, []
        for ch in bare:  # what follows the last top-level parenthesis: the main query
            depth += (ch == "(") - (ch == ")")
            tail.append(ch if depth == 0 else " ")
            if ch == ")" and depth == 0:
                tail = []
        main = "".join(tail).split()
        if main and main[0].upper() in _WRITE:
            return f"NL2SQLTool is configured in read-only mode and blocked a '{main[0].upper()}' statement after a CTE. {hint}"
    return None


def sqlalchemy_url(db_uri: str) -> str:
    """``db_uri`` with a driver that is installed (psycopg 3 / PyMySQL for bare postgresql:// / mysql://)."""
    scheme, sep, rest = db_uri.partition("://")
    if not sep:
        return db_uri
    base = scheme.lower()
    if base in {"postgresql", "postgres"} and importlib.util.find_spec("psycopg2") is None \
            and importlib.util.find_spec("psycopg") is not None:
        return f"postgresql+psycopg://{rest}"
    if base in {"mysql", "mariadb"} and importlib.util.find_spec("MySQLdb") is None \
            and importlib.util.find_spec("pymysql") is not None:
        return f"{base}+pymysql://{rest}"
    return db_uri


class NL2SQLTool(BaseTool):
    """Runs SQL against ``db_uri``; its description tells the model the dialect."""

    name: str = "NL2SQLTool"
    description: str = (
        "Converts natural language to SQL queries and executes them against a database. Read-only by "
        "default — only SELECT/SHOW/DESCRIBE/EXPLAIN queries (and read-only CTEs) are allowed unless "
        "configured with allow_dml=True."
    )
    args_schema: type[BaseModel] = NL2SQLToolInput
    db_uri: str = Field(..., repr=False, exclude=True, title="Database URI", description="The URI of the database to connect to.")
    dialect: str | None = Field(default=None, description="SQL dialect the model should write (else from db_uri)")
    allow_dml: bool = Field(default=False, description="Allow INSERT/UPDATE/DELETE/DDL (else read-only)")
    tables: list[dict[str, Any]] = Field(default_factory=list, description="The database's tables (read on first need)")
    columns: dict[str, list[dict[str, Any]] | str] = Field(default_factory=dict, description="Each table's columns")
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed to connect")
    _engine: Any = PrivateAttr(default=None)

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if os.environ.get("CREWAI_NL2SQL_ALLOW_DML", "").strip().lower() == "true":
            if not self.allow_dml:
                _logger.warning("NL2SQLTool: CREWAI_NL2SQL_ALLOW_DML is set: write statements are allowed")
            self.allow_dml = True
        if self.dialect and self.dialect.strip():
            self.dialect = self.dialect.strip().lower()
        else:
            scheme = self.db_uri.partition("://")[0].split("+")[0].lower() if "://" in self.db_uri else ""
            self.dialect = {"postgres": "postgresql"}.get(scheme, scheme) or None
        if self.dialect:
            guidance = _GUIDANCE.get(self.dialect, f"Generate SQL compatible with the {self.dialect} dialect.")
            self.description = f"{self.description.rstrip()} {guidance}"

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("sqlalchemy") is None:
            return [missing_library("NL2SQLTool", "sqlalchemy", "'crewgraph[sqlalchemy]'")]
        try:
            self._get_engine()
        except Exception as exc:  # an unknown dialect, a driver that is not installed
            return [f"NL2SQLTool cannot use db_uri: {type(exc).__name__}: {exc}"]
        return []

    def _get_engine(self) -> Any:
        if self._engine is None:
            from sqlalchemy import create_engine

            url = sqlalchemy_url(self.db_uri)
            backend = url.partition("://")[0].split("+")[0].lower()
            connect_args: dict[str, Any] = {}
            if backend in {"postgresql", "mysql", "mariadb"}:
                connect_args["connect_timeout"] = max(1, int(self.timeout))
            self._engine = create_engine(url, connect_args=connect_args, pool_pre_ping=True)
        return self._engine

    def _read_schema(self, conn: Any) -> None:
        """Fill ``tables`` and ``columns`` once, as CrewAI does at construction."""
        if self.tables:
            return
        from sqlalchemy import inspect

        inspector = inspect(conn)
        names = inspector.get_table_names()
        self.tables = [{"table_name": name} for name in names]
        self.columns = {
            f"{name}_columns": [{"column_name": c["name"], "data_type": str(c["type"])} for c in inspector.get_columns(name)]
            for name in names
        }

    def _guard(self, conn: Any) -> None:
        """The database's own read-only switch for this transaction (see the module doc)."""
        backend = conn.dialect.name
        if backend == "postgresql":
            conn.exec_driver_sql("SET TRANSACTION READ ONLY")
        elif backend in {"mysql", "mariadb"}:
            conn.exec_driver_sql("START TRANSACTION READ ONLY")
        elif backend == "sqlite":
            conn.exec_driver_sql("PRAGMA query_only = ON")

    def _run(self, sql_query: str) -> list[dict[str, Any]] | str | ToolFailure:
        refused = check_statement(sql_query, self.allow_dml)
        if refused:
            return ToolFailure(message=refused, code="statement_refused")
        try:
            from sqlalchemy import exc as sa_exc
        except ImportError:
            return ToolFailure(message=missing_library("NL2SQLTool", "sqlalchemy", "'crewgraph[sqlalchemy]'"),
                               code="missing_library")
        try:
            conn = self._get_engine().connect()
        except sa_exc.DBAPIError as exc:
            return ToolFailure(message=f"Could not reach the database: {exc.orig}", code="database_unavailable",
                               retryable=True)
        except sa_exc.ArgumentError as exc:
            return ToolFailure(message=f"NL2SQLTool cannot use db_uri: {exc}", code="invalid_configuration")
        try:
            rows = self._run_sql(conn, sql_query)
        except sa_exc.DBAPIError as exc:
            return self._sql_error(sql_query, exc)
        finally:
            conn.close()
        if rows is None:
            return f"Query {sql_query} executed successfully"
        return rows

    def _run_sql(self, conn: Any, sql_query: str) -> list[dict[str, Any]] | None:
        """The rows (None for a statement without rows); writes are committed only with allow_dml."""
        from sqlalchemy import text

        if self.allow_dml:  # statement by statement (drivers differ on several in one call); one commit
            rows: list[dict[str, Any]] | None = None
            try:
                for statement in _statements(sql_query):
                    result = conn.execute(text(statement))
                    if result.returns_rows:
                        rows = [dict(row._mapping) for row in result]
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
            return rows
        backend = conn.dialect.name
        try:
            self._guard(conn)
            result = conn.execute(text(sql_query))
            return [dict(row._mapping) for row in result] if result.returns_rows else None
        finally:
            conn.rollback()
            if backend == "sqlite":  # the pooled connection goes back writable
                conn.exec_driver_sql("PRAGMA query_only = OFF")
                conn.commit()

    def _sql_error(self, sql_query: str, exc: Any) -> ToolFailure:
        """The database's error, with the tables and columns, so the model can write a correct query."""
        reason = str(getattr(exc, "orig", None) or exc).strip()
        try:
            with self._get_engine().connect() as conn:
                self._read_schema(conn)
        except Exception as schema_exc:  # the schema is a help, not a requirement
            _logger.debug("NL2SQLTool could not read the schema: %s", schema_exc)
        return ToolFailure(
            message=(f"Based on these tables {self.tables} and columns {self.columns}, you can create SQL queries "
                     f"to retrieve data from the database. Get the original request {sql_query} and the error "
                     f"{reason} and create the correct SQL query."),
            code="sql_error",
        )
