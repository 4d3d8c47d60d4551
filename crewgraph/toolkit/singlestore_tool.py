"""SingleStoreSearchTool: SELECT and SHOW queries against SingleStore, over the MySQL protocol.

SingleStore speaks MySQL's wire protocol, so the tool connects with PyMySQL
(pure Python) through a SQLAlchemy ``QueuePool`` (``pool_size``,
``max_overflow``, ``timeout``), not the ``singlestoredb`` SDK; it is tested
against MariaDB. The connection comes from the arguments, then the
``SINGLESTOREDB_*`` variables CrewAI documents (``SINGLESTOREDB_URL`` as
``user:password@host:port/db``, or ``_HOST``, ``_PORT``, ``_USER``...).

The model gives a query; only one SELECT or SHOW statement runs, and the rows
come back as ``Search Results:`` lines of comma-separated values (CrewAI's
shape). The tables (``tables``, or every table) are checked and described
with their columns on first use; the description names them from the start
when ``tables`` is given. The ``singlestoredb`` options that only that SDK
has (``driver``, ``results_type``, ``vector_data_format``...) are refused.
Install with ``pip install 'crewgraph[singlestore]'``.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from crewgraph.toolkit._hosted import first_env, missing_library
from crewgraph.toolkit._mysql import connect_args, import_pymysql
from crewgraph.toolkit.mysql_search_tool import quote_mysql_identifier
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SingleStoreSearchTool", "SingleStoreSearchToolSchema"]

_SDK_ONLY = (
    "driver", "pure_python", "local_infile", "ssl_cipher", "ssl_verify_cert", "tls_sni_servername",
    "ssl_verify_identity", "conv", "credential_type", "autocommit", "results_type", "buffered", "results_format",
    "program_name", "conn_attrs", "multi_statements", "client_found_rows", "nan_as_null", "inf_as_null",
    "encoding_errors", "track_env", "enable_extended_data_types", "vector_data_format", "parse_json",
)


class SingleStoreSearchToolSchema(BaseModel):
    """Input for SingleStoreSearchTool: one SELECT or SHOW statement."""

    search_query: str = Field(..., description=(
        "Mandatory semantic search query you want to use to search the database's content. "
        "Only SELECT and SHOW queries are supported."))


def _validate(query: str) -> str | None:
    stripped = query.strip()
    if stripped.endswith(";"):
        stripped = stripped[:-1].rstrip()
    if not stripped:
        return "Search query must be a string."
    if ";" in stripped:
        return "Multiple SQL statements are not supported."
    if stripped.split(None, 1)[0].lower().rstrip("(") not in {"select", "show"}:
        return "Only SELECT and SHOW queries are supported for security reasons."
    return None


class SingleStoreSearchTool(BaseTool):
    """Runs the model's SELECT/SHOW query against one SingleStore (or MySQL-protocol) database."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str = "Search a database's table(s) content"
    description: str = "A tool that can be used to semantic search a query from a database."
    args_schema: type[BaseModel] = SingleStoreSearchToolSchema
    tables: list[str] = Field(default_factory=list, description="Tables to work with (empty: all)")
    host: str | None = None
    user: str | None = None
    password: str | None = Field(default=None, repr=False, exclude=True)
    port: int | None = None
    database: str | None = None
    charset: str | None = None
    ssl_key: str | None = None
    ssl_cert: str | None = None
    ssl_ca: str | None = None
    ssl_disabled: bool | None = None
    connect_timeout: int | None = Field(default=None, gt=0)
    pool_size: int | None = Field(default=5, ge=1)
    max_overflow: int | None = Field(default=10, ge=0)
    timeout: float | None = Field(default=30, gt=0, description="Seconds to wait for a pooled connection")
    connection_args: dict[str, Any] = Field(default_factory=dict, repr=False, exclude=True)
    connection_pool: Any | None = Field(default=None, repr=False, exclude=True)

    _env_names: ClassVar[tuple[str, ...]] = (
        "SINGLESTOREDB_URL", "SINGLESTOREDB_HOST", "SINGLESTOREDB_PORT", "SINGLESTOREDB_USER",
        "SINGLESTOREDB_PASSWORD", "SINGLESTOREDB_DATABASE", "SINGLESTOREDB_SSL_KEY", "SINGLESTOREDB_SSL_CERT",
        "SINGLESTOREDB_SSL_CA", "SINGLESTOREDB_CONNECT_TIMEOUT")
    _described: bool = PrivateAttr(default=False)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """The ``SINGLESTOREDB_*`` variables read when the arguments leave a setting open (CrewAI's ``env_vars``)."""
        return cls._env_names

    @model_validator(mode="before")
    @classmethod
    def _refuse_sdk_options(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in _SDK_ONLY:
                if data.get(name) not in (None, {}, False):
                    raise ValueError(
                        f"SingleStoreSearchTool({name}=...) is not supported: crewgraph connects over the MySQL "
                        "protocol with PyMySQL, not the singlestoredb SDK that option belongs to")
        return data

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.tables:
            self.description = ("A tool that can be used to semantic search a query from a SingleStore "
                                f"database's {', '.join(self.tables)} table(s) content.")

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("pymysql") is None or importlib.util.find_spec("sqlalchemy") is None:
            return [missing_library("SingleStoreSearchTool", "pymysql and sqlalchemy", "'crewgraph[singlestore]'")]
        try:
            self._args()
        except ValueError as exc:
            return [f"SingleStoreSearchTool: {exc}"]
        return []

    def _args(self) -> dict[str, Any]:
        """PyMySQL arguments: the fields, then ``SINGLESTOREDB_*``, then ``connection_args``."""
        args: dict[str, Any] = {}
        url = first_env("SINGLESTOREDB_URL")
        if url:
            try:
                args.update(connect_args(url))
            except ValueError as exc:
                raise ValueError(f"SINGLESTOREDB_URL is {exc}") from None
        env = {key: first_env(f"SINGLESTOREDB_{key.upper()}") for key in
               ("host", "port", "user", "password", "database", "ssl_key", "ssl_cert", "ssl_ca", "connect_timeout")}
        for key, value in env.items():
            if value:
                args[key] = int(value) if key in {"port", "connect_timeout"} else value
        for key in ("host", "port", "user", "password", "database", "charset", "ssl_key", "ssl_cert", "ssl_ca",
                    "ssl_disabled", "connect_timeout"):
            value = getattr(self, key)
            if value is not None:
                args[key] = value
        args.update(self.connection_args)
        if not args.get("host"):
            raise ValueError("no host: pass host=... or set SINGLESTOREDB_URL or SINGLESTOREDB_HOST")
        args.setdefault("connect_timeout", 10)
        args.setdefault("read_timeout", int(os.environ.get("SINGLESTOREDB_READ_TIMEOUT") or 60))
        return args

    def _pool(self) -> Any:
        with self._lock:
            if self.connection_pool is None:
                from sqlalchemy.pool import QueuePool

                pymysql = import_pymysql("SingleStoreSearchTool")
                args = self._args()
                self.connection_pool = QueuePool(lambda: pymysql.connect(**args), pool_size=self.pool_size or 5,
                                                 max_overflow=self.max_overflow or 10, timeout=self.timeout or 30.0)
            return self.connection_pool

    def _describe(self, cursor: Any) -> str | None:
        """Check the tables once and name them, with their columns, in the description."""
        cursor.execute("SHOW TABLES")
        existing = {row[0] for row in cursor.fetchall()}
        if not existing:
            return "No tables found in the database. Please ensure the database is initialized with the required tables."
        tables = self.tables or sorted(existing)
        definitions = []
        for table in tables:
            if table not in existing:
                return f"Table {table} does not exist in the database. Please ensure the table is created."
            cursor.execute(f"SHOW COLUMNS FROM {quote_mysql_identifier(table)}")
            definitions.append(f"{table}({', '.join(f'{row[0]} {row[1]}' for row in cursor.fetchall())})")
        self.description = ("A tool that can be used to semantic search a query from a SingleStore database's "
                            f"{', '.join(definitions)} table(s) content.")
        self._described = True
        return None

    def _run(self, search_query: str) -> str | ToolFailure:
        invalid = _validate(search_query)
        if invalid:
            return ToolFailure(message=f"Invalid search query: {invalid}", code="invalid_query")
        try:
            pool = self._pool()
            conn = pool.connect()
        except (ImportError, ValueError) as exc:
            return ToolFailure(message=str(exc), code="invalid_configuration")
        except Exception as exc:  # PyMySQL's OperationalError, the pool's TimeoutError
            return ToolFailure(message=f"Could not connect to SingleStore: {exc}", code="database_unavailable",
                               retryable=True)
        try:
            with conn.cursor() as cursor:
                if not self._described:
                    problem = self._describe(cursor)
                    if problem:
                        return ToolFailure(message=problem, code="missing_table")
                try:
                    cursor.execute(search_query)
                    results = cursor.fetchall()
                except Exception as exc:
                    return ToolFailure(message=f"Error executing search query: {exc}", code="query_error")
            if not results:
                return "No results found."
            return "Search Results:\n" + "\n".join(", ".join(str(item) for item in row) for row in results)
        finally:
            conn.close()
