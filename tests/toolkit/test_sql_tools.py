"""MySQLSearchTool, NL2SQLTool and SingleStoreSearchTool against real servers started for this module.

MariaDB (Debian's mariadb-server) stands in for MySQL and for SingleStore (same
wire protocol); NL2SQLTool also runs on PostgreSQL and SQLite. Each server
starts once; a test skips, saying why, when its server is not installed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from _db_servers import free_port, fresh_database, serve_mariadb

from crewgraph.toolkit import MySQLSearchTool, NL2SQLTool, SingleStoreSearchTool
from crewgraph.toolkit.nl2sql_tool import check_statement
from crewgraph.tools import ToolFailure


def _require_drivers() -> None:
    """Skips the test; called at setup, not at import, so collecting the suite does not import the library."""
    pytest.importorskip("pymysql", reason="pymysql is not installed (pip install 'crewgraph[mysql]')")
    pytest.importorskip("sqlalchemy", reason="sqlalchemy is not installed (pip install 'crewgraph[sqlalchemy]')")


@pytest.fixture(autouse=True)
def _drivers_installed() -> None:
    """Function scope: a module-scoped autouse fixture would make the module one xdist group."""
    _require_drivers()


@pytest.fixture(scope="module")
def mysql_uri() -> Iterator[str]:
    _require_drivers()  # module fixtures set up before the autouse one
    import pymysql

    for uri in serve_mariadb():
        port = int(uri.rsplit(":", 1)[1].split("/")[0])
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="shop", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE employees (id INT, name VARCHAR(40), role VARCHAR(40), note TEXT)")
            cur.execute("""INSERT INTO employees VALUES
                (1, 'Ada', 'engineer', 'maintains the payment retry service'),
                (2, 'Grace', 'chef', 'cooks vegetarian lasagna on Wednesdays'),
                (3, 'Linus', 'operator', 'runs the nightly database backups')""")
            cur.execute("CREATE TABLE `odd ``name` (x TEXT)")
        conn.close()
        yield uri


@pytest.fixture(scope="module")
def pg_uri(postgres_server: str) -> Iterator[str]:
    import psycopg

    for uri in [fresh_database(postgres_server, "nl2sql")]:
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE TABLE orders (id int, customer text, total numeric(8,2))")
            conn.execute("INSERT INTO orders VALUES (1, 'Ada', 12.50), (2, 'Grace', 99.00)")
            conn.execute("CREATE SEQUENCE counter")
        yield uri


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("CREWAI_NL2SQL_ALLOW_DML", raising=False)
    for name in ("URL", "HOST", "PORT", "USER", "PASSWORD", "DATABASE"):
        monkeypatch.delenv(f"SINGLESTOREDB_{name}", raising=False)


# MySQLSearchTool ---------------------------------------------------------

def test_mysql_rows_are_searched_semantically(mysql_uri: str) -> None:
    tool = MySQLSearchTool(db_uri=mysql_uri, table_name="employees", limit=1, chunk_size=100)
    answer = tool.run(search_query="Who cooks pasta?")
    assert answer.startswith("Relevant Content:\n") and "name: Grace" in answer and "Ada" not in answer
    assert "name: Linus" in tool.run(search_query="who takes care of backups?")
    assert "db_uri" not in repr(tool) and "employees" in tool.description
    assert set(tool.to_spec().parameters["properties"]) == {"search_query"}


def test_mysql_identifiers_are_quoted_and_errors_are_failures(mysql_uri: str) -> None:
    empty = MySQLSearchTool(db_uri=mysql_uri, table_name="odd `name").run(search_query="x")
    assert isinstance(empty, ToolFailure) and empty.code == "empty_table"
    missing = MySQLSearchTool(db_uri=mysql_uri, table_name="employees; DROP TABLE employees").run(search_query="x")
    assert isinstance(missing, ToolFailure) and missing.code == "database_error" and "doesn't exist" in missing.message
    assert "name: Ada" in MySQLSearchTool(db_uri=mysql_uri, table_name="shop.employees").run(search_query="payments")
    down = MySQLSearchTool(db_uri=f"mysql://root@127.0.0.1:{free_port()}/shop", table_name="t", timeout=2)
    result = down.run(search_query="x")
    assert isinstance(result, ToolFailure) and result.code == "database_unavailable" and result.retryable
    assert MySQLSearchTool(db_uri="postgresql://x/y", table_name="t").config_problems() == [
        "MySQLSearchTool: db_uri is not a MySQL URI (scheme 'postgresql'; expected mysql://user:password@host:port/db)"]


# NL2SQLTool --------------------------------------------------------------

def test_nl2sql_reads_rows_as_dicts_on_mariadb(mysql_uri: str) -> None:
    tool = NL2SQLTool(db_uri=mysql_uri)
    assert tool.dialect == "mysql" and "mysql dialect" in tool.description
    rows = tool.run(sql_query="SELECT id, name FROM employees WHERE role = 'chef'")
    assert rows == [{"id": 2, "name": "Grace"}]
    assert tool.format_output_for_agent(rows) == "[{'id': 2, 'name': 'Grace'}]"  # str(), as CrewAI renders it
    refused = tool.run(sql_query="DELETE FROM employees")
    assert isinstance(refused, ToolFailure) and refused.code == "statement_refused" and "'DELETE'" in refused.message
    wrong = tool.run(sql_query="SELECT salary FROM employees")
    assert isinstance(wrong, ToolFailure) and wrong.code == "sql_error" and "Unknown column" in wrong.message
    assert "employees_columns" in wrong.message and "'column_name': 'note'" in wrong.message
    assert tool.tables and {"table_name": "employees"} in tool.tables


def test_nl2sql_read_only_is_also_enforced_by_the_database(mysql_uri: str) -> None:
    NL2SQLTool(db_uri=mysql_uri, allow_dml=True).run(sql_query="CREATE SEQUENCE ticket")
    tool = NL2SQLTool(db_uri=mysql_uri)
    # NEXTVAL writes the sequence: the keyword check sees a SELECT, the read-only transaction refuses it.
    missed = tool.run(sql_query="SELECT NEXTVAL(ticket) AS n")
    assert isinstance(missed, ToolFailure) and missed.code == "sql_error" and "READ ONLY" in missed.message
    writer = NL2SQLTool(db_uri=mysql_uri, allow_dml=True)
    assert writer.run(sql_query="SELECT NEXTVAL(ticket) AS n") == [{"n": 1}]


def test_nl2sql_writes_only_with_allow_dml(mysql_uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = NL2SQLTool(db_uri=mysql_uri, allow_dml=True)
    out = writer.run(sql_query="CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('hello')")
    assert out.startswith("Query CREATE TABLE notes") and out.endswith("executed successfully")
    assert NL2SQLTool(db_uri=mysql_uri).run(sql_query="SELECT body FROM notes") == [{"body": "hello"}]
    monkeypatch.setenv("CREWAI_NL2SQL_ALLOW_DML", "true")
    assert NL2SQLTool(db_uri=mysql_uri).allow_dml is True


def test_nl2sql_on_postgresql(pg_uri: str) -> None:
    tool = NL2SQLTool(db_uri=pg_uri)
    assert tool.dialect == "postgresql" and "ILIKE" in tool.description
    rows = tool.run(sql_query="SELECT customer, total FROM orders WHERE customer ILIKE 'gr%'")
    assert [(r["customer"], float(r["total"])) for r in rows] == [("Grace", 99.0)]
    hidden = tool.run(sql_query="WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone")
    assert isinstance(hidden, ToolFailure) and "writable CTE" in hidden.message
    # A write the keyword check cannot see (inside a function) is refused by PostgreSQL's read-only transaction.
    missed = tool.run(sql_query="SELECT setval('counter', 5)")
    assert isinstance(missed, ToolFailure) and missed.code == "sql_error" and "read-only transaction" in missed.message
    explain = tool.run(sql_query="EXPLAIN ANALYZE DELETE FROM orders")
    assert isinstance(explain, ToolFailure) and explain.code == "statement_refused"
    assert len(tool.run(sql_query="SELECT * FROM orders")) == 2
    down = NL2SQLTool(db_uri=f"postgresql://crew@127.0.0.1:{free_port()}/postgres", timeout=2)
    result = down.run(sql_query="SELECT 1")
    assert isinstance(result, ToolFailure) and result.code == "database_unavailable" and result.retryable


def test_nl2sql_on_sqlite_and_the_statement_check(tmp_path: Path) -> None:
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE items (name TEXT, price REAL)")
        conn.execute("INSERT INTO items VALUES ('pen', 1.5)")
    tool = NL2SQLTool(db_uri=f"sqlite:///{db}")
    assert "strftime" in tool.description and tool.run(sql_query="SELECT * FROM items;") == [{"name": "pen", "price": 1.5}]
    assert isinstance(tool.run(sql_query="SELECT 1; DROP TABLE items"), ToolFailure)
    assert check_statement("SELECT ';' AS semicolon", allow_dml=False) is None
    assert check_statement("  ", allow_dml=False) == "NL2SQLTool received an empty SQL query."
    assert "unrecognised SQL command 'PRAGMA'" in str(check_statement("PRAGMA writable_schema=1", allow_dml=False))
    assert "after a CTE" in str(check_statement("WITH a AS (SELECT 1) DELETE FROM items", allow_dml=False))
    assert check_statement("WITH a AS (SELECT 'delete') SELECT * FROM a", allow_dml=False) is None
    assert check_statement("DROP TABLE items", allow_dml=True) is None


# SingleStoreSearchTool ---------------------------------------------------

def _parts(uri: str) -> dict[str, object]:
    hostport = uri.split("@", 1)[1].split("/", 1)[0]
    return {"host": "127.0.0.1", "port": int(hostport.rsplit(":", 1)[1]), "user": "root", "database": "shop"}


def test_singlestore_runs_select_and_show(mysql_uri: str) -> None:
    tool = SingleStoreSearchTool(tables=["employees"], **_parts(mysql_uri))
    assert "employees" in tool.description and "password" not in repr(tool)
    out = tool.run(search_query="SELECT name, role FROM employees WHERE id <= 2 ORDER BY id")
    assert out == "Search Results:\nAda, engineer\nGrace, chef"
    assert "employees(id int(11), name varchar(40)" in tool.description  # described with its columns on first use
    assert tool.run(search_query="SELECT name FROM employees WHERE id = 99") == "No results found."
    assert "employees" in tool.run(search_query="SHOW TABLES")
    for bad, why in [("DELETE FROM employees", "Only SELECT and SHOW"), ("SELECT 1; DROP TABLE employees", "Multiple")]:
        refused = tool.run(search_query=bad)
        assert isinstance(refused, ToolFailure) and why in refused.message
    error = tool.run(search_query="SELECT nope FROM employees")
    assert isinstance(error, ToolFailure) and error.message.startswith("Error executing search query:")


def test_singlestore_connection_from_environment(mysql_uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SINGLESTOREDB_URL", mysql_uri.split("://", 1)[1])  # user@host:port/db, as SingleStore shows it
    tool = SingleStoreSearchTool()
    assert tool.config_problems() == []
    assert tool.run(search_query="SELECT COUNT(*) FROM employees") == "Search Results:\n3"
    missing = SingleStoreSearchTool(tables=["nope"]).run(search_query="SELECT 1")
    assert isinstance(missing, ToolFailure) and "Table nope does not exist" in missing.message
    monkeypatch.delenv("SINGLESTOREDB_URL")
    assert SingleStoreSearchTool().config_problems() == [
        "SingleStoreSearchTool: no host: pass host=... or set SINGLESTOREDB_URL or SINGLESTOREDB_HOST"]
    with pytest.raises(ValueError, match=r"vector_data_format=\.\.\.\) is not supported"):
        SingleStoreSearchTool(vector_data_format="json")
