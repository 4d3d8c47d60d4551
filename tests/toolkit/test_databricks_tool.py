"""DatabricksQueryTool against a local stand-in of the SQL Statement Execution API 2.0."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.testing.fake_http import FakeRequestRecord
from crewgraph.toolkit import DatabricksQueryTool
from crewgraph.tools import ToolFailure

_POLLS: dict[str, int] = {}


def _submit(request: FakeRequestRecord) -> Any:
    if request.headers.get("authorization") != "Bearer dapi-test":
        return 401, {"error_code": "UNAUTHENTICATED", "message": "Invalid access token"}
    sql = request.json["statement"]
    if "broken" in sql:
        return {"statement_id": "s-bad", "status": {"state": "FAILED", "error": {"message": "[TABLE_OR_VIEW_NOT_FOUND] broken"}}}
    _POLLS["s-1"] = 0
    return {"statement_id": "s-1", "status": {"state": "PENDING"}}


def _poll(request: FakeRequestRecord) -> Any:
    _POLLS["s-1"] += 1
    if _POLLS["s-1"] < 2:
        return {"statement_id": "s-1", "status": {"state": "RUNNING"}}
    return {"statement_id": "s-1", "status": {"state": "SUCCEEDED"},
            "manifest": {"schema": {"columns": [{"name": "city"}, {"name": "orders"}]}},
            "result": {"data_array": [["Oslo", "12"], ["Lima", None]]}}


@pytest.fixture(scope="module")
def databricks() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"POST /api/2.0/sql/statements": _submit, "GET /api/2.0/sql/statements/s-1": _poll}) as api:
        yield api


@pytest.fixture(autouse=True)
def _env(databricks: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABRICKS_HOST", databricks.url)
    monkeypatch.setenv("DATABRICKS_TOKEN", "dapi-test")
    monkeypatch.delenv("DATABRICKS_CONFIG_PROFILE", raising=False)


def test_query_is_submitted_polled_and_tabled(databricks: FakeHTTPService) -> None:
    tool = DatabricksQueryTool(default_warehouse_id="wh-1", default_catalog="main", poll_interval=0.05)
    out = tool.run(query="SELECT city, orders FROM sales.orders", db_schema="sales")
    assert out == "city | orders\n-----+-------\nOslo | 12    \nLima | NULL  \n\n(2 rows returned)"
    sent = databricks.requests_to("/api/2.0/sql/statements")[-1].json
    assert sent["statement"] == "SELECT city, orders FROM sales.orders LIMIT 1000;"
    assert (sent["warehouse_id"], sent["catalog"], sent["schema"], sent["format"]) == ("wh-1", "main", "sales", "JSON_ARRAY")
    assert len(databricks.requests_to("/api/2.0/sql/statements/s-1")) == 2


def test_failures(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, databricks: FakeHTTPService) -> None:
    tool = DatabricksQueryTool(default_warehouse_id="wh-1", poll_interval=0.05)
    failed = tool.run(query="SELECT * FROM broken")
    assert isinstance(failed, ToolFailure) and failed.message == "Query execution failed: [TABLE_OR_VIEW_NOT_FOUND] broken"
    nowh = DatabricksQueryTool().run(query="SELECT 1")
    assert isinstance(nowh, ToolFailure) and nowh.code == "missing_warehouse"
    monkeypatch.setenv("DATABRICKS_TOKEN", "wrong")
    denied = tool.run(query="SELECT 1")
    assert isinstance(denied, ToolFailure) and "Invalid access token" in denied.message
    monkeypatch.delenv("DATABRICKS_TOKEN")
    monkeypatch.delenv("DATABRICKS_HOST")
    assert tool.config_problems() == ["DatabricksQueryTool needs Databricks credentials: set DATABRICKS_HOST and "
                                      "DATABRICKS_TOKEN, or DATABRICKS_CONFIG_PROFILE"]
    cfg = tmp_path / "databrickscfg"
    cfg.write_text(f"[dev]\nhost = {databricks.url}\ntoken = dapi-test\n")
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(cfg))
    monkeypatch.setenv("DATABRICKS_CONFIG_PROFILE", "dev")
    assert tool.config_problems() == [] and "Oslo" in tool.run(query="SELECT city FROM t")
