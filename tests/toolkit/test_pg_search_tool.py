"""PGSearchTool against a real PostgreSQL server started for this module (skipped, saying why, without one)."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.toolkit import PGSearchTool
from crewgraph.tools import ToolFailure

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'crewgraph[tools]')")


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    return versions[-1] if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def pg_uri() -> Iterator[str]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (scripts/setup.sh installs the Debian package postgresql)")
    # Not under pytest's tmp dir: that one is private to root, and the server may run as 'postgres'.
    root = Path(tempfile.mkdtemp(prefix="crewgraph-pg-"))
    try:
        yield from _serve(bindir, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _serve(bindir: Path, root: Path) -> Iterator[str]:
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    as_user: dict[str, Any] = {}
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root: run them as the package's user
        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run PostgreSQL as")
        as_user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
    init = subprocess.run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "crew", "--no-sync"],
                          capture_output=True, text=True, timeout=120, cwd=root, **as_user)
    if init.returncode != 0:
        pytest.skip(f"initdb failed: {init.stderr.strip()[-300:]}")
    port = _free_port()
    log = (root / "server.log").open("w")  # a file, not a pipe: a full pipe would stall the server
    server = subprocess.Popen(
        [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(sock),
         "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
        stdout=log, stderr=subprocess.STDOUT, cwd=root, **as_user,
    )
    uri = f"postgresql://crew@127.0.0.1:{port}/postgres"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(uri, connect_timeout=2):
                    break
            except psycopg.OperationalError:
                if server.poll() is not None or time.monotonic() > deadline:
                    err = (root / "server.log").read_text(errors="replace")
                    pytest.skip(f"PostgreSQL did not start: {err.strip()[-300:]}")
                time.sleep(0.1)
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE TABLE employees (id int, name text, role text, note text)")
            conn.execute("""INSERT INTO employees VALUES
                (1, 'Ada', 'engineer', 'maintains the payment retry service'),
                (2, 'Grace', 'chef', 'cooks vegetarian lasagna on Wednesdays'),
                (3, 'Linus', 'operator', 'runs the nightly database backups')""")
            conn.execute('CREATE TABLE "Odd Name" (x text)')
        yield uri
    finally:
        server.send_signal(signal.SIGINT)  # "fast" shutdown: no waiting for clients
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=5)
        log.close()


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
    tool = PGSearchTool(db_uri=f"postgresql://crew@127.0.0.1:{_free_port()}/postgres", table_name="t", timeout=2)
    result = tool.run(search_query="x")
    assert isinstance(result, ToolFailure) and result.code == "database_unavailable" and result.retryable
    assert tool.config_problems() == []
