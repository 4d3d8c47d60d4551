"""PGSearchTool against a real PostgreSQL server started for this module (skipped, saying why, without one)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _db_servers import free_port, fresh_database

from crewgraph.toolkit import PGSearchTool
from crewgraph.tools import ToolFailure

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'crewgraph[tools]')")


@pytest.fixture(scope="module")
def pg_uri(postgres_server: str) -> Iterator[str]:
    for uri in [fresh_database(postgres_server, "pgsearch")]:
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE TABLE employees (id int, name text, role text, note text)")
            conn.execute("""INSERT INTO employees VALUES
                (1, 'Ada', 'engineer', 'maintains the payment retry service'),
                (2, 'Grace', 'chef', 'cooks vegetarian lasagna on Wednesdays'),
                (3, 'Linus', 'operator', 'runs the nightly database backups')""")
            conn.execute('CREATE TABLE "Odd Name" (x text)')
        yield uri


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))


def test_rows_are_searched_semantically(pg_uri: str) -> None:
    tool = PGSearchTool(db_uri=pg_uri, table_name="employees", limit=1, chunk_size=100)  # a row per chunk
    answer = tool.run(search_query="Who cooks pasta?")
    assert answer.startswith("Relevant Content:\n") and "name: Grace" in answer and "Ada" not in answer
    assert "name: Linus" in tool.run(search_query="who takes care of backups?")
    assert "db_uri" not in repr(tool) and "employees" in tool.description


def test_identifiers_are_quoted_and_errors_are_failures(pg_uri: str) -> None:
    empty = PGSearchTool(db_uri=pg_uri, table_name="Odd Name").run(search_query="x")
    assert isinstance(empty, ToolFailure) and empty.code == "empty_table"
    missing = PGSearchTool(db_uri=pg_uri, table_name="employees; DROP TABLE employees").run(search_query="x")
    assert isinstance(missing, ToolFailure) and missing.code == "database_error" and "does not exist" in missing.message
    assert "name: Ada" in PGSearchTool(db_uri=pg_uri, table_name="public.employees").run(search_query="payments")


def test_an_unreachable_database_is_a_retryable_failure() -> None:
    tool = PGSearchTool(db_uri=f"postgresql://crew@127.0.0.1:{free_port()}/postgres", table_name="t", timeout=2)
    result = tool.run(search_query="x")
    assert isinstance(result, ToolFailure) and result.code == "database_unavailable" and result.retryable
    assert tool.config_problems() == []
