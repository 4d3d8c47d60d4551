"""DatabricksQueryTool: SQL on a Databricks SQL warehouse through the Statement Execution API (httpx).

``POST {host}/api/2.0/sql/statements`` (``warehouse_id``, ``catalog``,
``schema``, inline ``JSON_ARRAY`` results, waiting up to 30 s), then
``GET /api/2.0/sql/statements/{id}`` every ``poll_interval`` seconds while the
statement is PENDING or RUNNING, for at most ``max_wait`` seconds. The rows
come back as CrewAI's text table (``col | col`` header, ``-+-`` rule, one line
per row, ``(N rows returned)``); a ``LIMIT row_limit`` is added to a query
without one, as CrewAI does.

Credentials are CrewAI's: ``DATABRICKS_HOST`` and ``DATABRICKS_TOKEN``, or the
``DATABRICKS_CONFIG_PROFILE`` section of ``~/.databrickscfg`` (its ``host`` and
``token``; other auth types of the SDK's profiles are not read). No
``databricks-sdk`` is needed.
"""

from __future__ import annotations

import configparser
import os
import time
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["DatabricksQueryTool", "DatabricksQueryToolSchema", "format_rows"]


class DatabricksQueryToolSchema(BaseModel):
    """Input for DatabricksQueryTool."""

    query: str = Field(..., description="SQL query to execute against the Databricks workspace table")
    catalog: str | None = Field(None, description="Databricks catalog name (optional, defaults to configured catalog)")
    db_schema: str | None = Field(None, description="Databricks schema name (optional, defaults to configured schema)")
    warehouse_id: str | None = Field(None, description="Databricks SQL warehouse ID (optional, defaults to configured warehouse)")
    row_limit: int | None = Field(1000, description="Maximum number of rows to return (default: 1000)")

    @model_validator(mode="after")
    def _not_empty(self) -> DatabricksQueryToolSchema:
        if not self.query.strip():
            raise ValueError("Query cannot be empty")
        return self


def format_rows(columns: list[str], rows: list[list[Any]]) -> str:
    """CrewAI's table: padded columns, NULL for None, and the row count."""
    if not rows:
        return "Query returned no results."
    cells = [["NULL" if v is None else str(v) for v in row] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    header = " | ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    rule = "-+-".join("-" * w for w in widths)
    lines = [" | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    return f"{header}\n{rule}\n" + "\n".join(lines) + f"\n\n({len(rows)} row{'s' if len(rows) != 1 else ''} returned)"


class DatabricksQueryTool(HostedTool):
    """Runs the model's SQL on a warehouse (``default_warehouse_id`` unless the model names one)."""

    name: str = "Databricks SQL Query"
    description: str = ("Execute SQL queries against Databricks workspace tables and return the results. "
                        "Provide a 'query' parameter with the SQL query to execute.")
    args_schema: type[BaseModel] = DatabricksQueryToolSchema
    default_catalog: str | None = None
    default_schema: str | None = None
    default_warehouse_id: str | None = None
    max_wait: float = Field(default=300.0, gt=0, description="Seconds to wait for a statement to finish")
    poll_interval: float = Field(default=2.0, gt=0)

    _service: ClassVar[str] = "Databricks"
    _key_envs: ClassVar[tuple[str, ...]] = ("DATABRICKS_TOKEN",)
    _other_envs: ClassVar[tuple[str, ...]] = ("DATABRICKS_HOST", "DATABRICKS_CONFIG_PROFILE")

    def _profile(self) -> dict[str, str]:
        name = first_env("DATABRICKS_CONFIG_PROFILE")
        if not name:
            return {}
        parser = configparser.ConfigParser()
        parser.read(os.environ.get("DATABRICKS_CONFIG_FILE") or Path.home() / ".databrickscfg")
        return dict(parser[name]) if parser.has_section(name) else {}

    def resolved_key(self) -> str | None:
        return self.api_key or first_env("DATABRICKS_TOKEN") or self._profile().get("token")

    def _host(self) -> str | None:
        host = self.base_url or first_env("DATABRICKS_HOST") or self._profile().get("host")
        if host and "://" not in host:
            host = "https://" + host
        return host.rstrip("/") if host else None

    def _key_hint(self) -> str:
        return "set DATABRICKS_HOST and DATABRICKS_TOKEN, or DATABRICKS_CONFIG_PROFILE"

    def config_problems(self) -> list[str]:
        if not (self._host() and self.resolved_key()):
            return [f"DatabricksQueryTool needs Databricks credentials: {self._key_hint()}"]
        return []

    def _run(self, query: str, catalog: str | None = None, db_schema: str | None = None,
             warehouse_id: str | None = None, row_limit: int | None = 1000) -> str | ToolFailure:
        host, token = self._host(), self.resolved_key()
        if not (host and token):
            return ToolFailure(message=f"DatabricksQueryTool has no Databricks credentials: {self._key_hint()}",
                               code="missing_api_key")
        warehouse = warehouse_id or self.default_warehouse_id
        if not warehouse:
            return ToolFailure(message="SQL warehouse ID must be provided either as a parameter or as a default.",
                               code="missing_warehouse")
        if row_limit and "limit" not in query.lower():
            query = f"{query.rstrip().rstrip(';')} LIMIT {row_limit};"
        body: dict[str, Any] = {"statement": query, "warehouse_id": warehouse, "wait_timeout": "30s",
                                "on_wait_timeout": "CONTINUE", "format": "JSON_ARRAY", "disposition": "INLINE"}
        if catalog or self.default_catalog:
            body["catalog"] = catalog or self.default_catalog
        if db_schema or self.default_schema:
            body["schema"] = db_schema or self.default_schema
        headers = {"Authorization": f"Bearer {token}"}
        result = self._call("POST", "", headers=headers, json_body=body, url=f"{host}/api/2.0/sql/statements")
        deadline = time.monotonic() + self.max_wait
        while not isinstance(result, ToolFailure):
            state = str((result.get("status") or {}).get("state", ""))
            if state not in {"PENDING", "RUNNING"}:
                break
            if time.monotonic() > deadline:
                return ToolFailure(message=f"Query timed out after {self.max_wait:g} seconds (last state: {state})",
                                   code="timeout", retryable=True)
            time.sleep(self.poll_interval)
            result = self._call("GET", "", headers=headers,
                                url=f"{host}/api/2.0/sql/statements/{result.get('statement_id')}")
        if isinstance(result, ToolFailure):
            return result
        status = result.get("status") or {}
        if status.get("state") == "FAILED":
            error = status.get("error") or {}
            return ToolFailure(message=f"Query execution failed: {error.get('message') or 'No detailed error info'}",
                               code="query_failed")
        if status.get("state") in {"CANCELED", "CLOSED"}:
            return ToolFailure(message="Query was canceled", code="query_canceled")
        columns = [c.get("name", "") for c in ((result.get("manifest") or {}).get("schema") or {}).get("columns", [])]
        rows = (result.get("result") or {}).get("data_array") or []
        return format_rows(columns, rows)
