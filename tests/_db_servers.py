"""Real database servers for the tests: PostgreSQL and MariaDB in a temporary data dir.

Used by the toolkit's SQL tools and the PostgreSQL stores (tests/conftest.py: one PostgreSQL per session).

Each ``serve_*`` generator starts one server on a free 127.0.0.1 port, yields
its URI once it answers, and stops it afterwards; it skips (saying why) when
the Debian package is not installed. A module-scoped fixture calls it once.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_user(name: str, *paths: Path) -> dict[str, Any]:
    """Run as the package's user when root (the servers refuse root), owning ``paths``."""
    if os.geteuid() != 0:
        return {}
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        pytest.skip(f"running as root and there is no {name!r} user to run the server as")
    for path in paths:
        shutil.chown(path, name)
    return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}


def _wait(ready: Callable[[], bool], server: subprocess.Popen[bytes], log: Path, what: str) -> None:
    deadline = time.monotonic() + 30
    while not ready():
        if server.poll() is not None or time.monotonic() > deadline:
            pytest.skip(f"{what} did not start: {log.read_text(errors='replace').strip()[-300:]}")
        time.sleep(0.1)


def _stop(server: subprocess.Popen[bytes], sig: int) -> None:
    server.send_signal(sig)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)


def pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    return versions[-1] if versions else None


def serve_postgres() -> Iterator[str]:
    """``postgresql://crew@127.0.0.1:PORT/postgres`` (trust auth) while the generator is open."""
    import psycopg

    bindir = pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (scripts/setup.sh installs the Debian package postgresql)")
    # Not under pytest's tmp dir: that one is private to root, and the server may run as 'postgres'.
    root = Path(tempfile.mkdtemp(prefix="crewgraph-pg-"))
    try:
        data, sock = root / "data", root / "sock"
        sock.mkdir()
        as_user = _as_user("postgres", root, sock)
        init = subprocess.run([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "crew", "--no-sync"],
                              capture_output=True, text=True, timeout=120, cwd=root, **as_user)
        if init.returncode != 0:
            pytest.skip(f"initdb failed: {init.stderr.strip()[-300:]}")
        port = free_port()
        with (root / "server.log").open("w") as log:  # a file, not a pipe: a full pipe would stall the server
            server = subprocess.Popen(
                [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(sock),
                 "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
                stdout=log, stderr=subprocess.STDOUT, cwd=root, **as_user)
            uri = f"postgresql://crew@127.0.0.1:{port}/postgres"

            def ready() -> bool:
                try:
                    with psycopg.connect(uri, connect_timeout=2):
                        return True
                except psycopg.OperationalError:
                    return False

            try:
                _wait(ready, server, root / "server.log", "PostgreSQL")
                yield uri
            finally:
                _stop(server, signal.SIGINT)  # "fast" shutdown: no waiting for clients
    finally:
        shutil.rmtree(root, ignore_errors=True)


def serve_mariadb() -> Iterator[str]:
    """``mysql://root@127.0.0.1:PORT/shop`` on a fresh MariaDB (database ``shop`` created)."""
    import pymysql

    daemon = shutil.which("mariadbd") or shutil.which("mariadbd", path="/usr/sbin:/usr/local/sbin")
    install = shutil.which("mariadb-install-db")
    if daemon is None or install is None:
        pytest.skip("MariaDB is not installed (scripts/setup.sh installs the Debian package mariadb-server)")
    root = Path(tempfile.mkdtemp(prefix="crewgraph-mariadb-"))
    try:
        as_user = _as_user("mysql", root)
        user = ["--user=mysql"] if as_user else []
        init = subprocess.run([install, "--no-defaults", f"--datadir={root / 'data'}", *user, "--skip-test-db",
                               "--auth-root-authentication-method=normal"],
                              capture_output=True, text=True, timeout=120, cwd=root)
        if init.returncode != 0:
            pytest.skip(f"mariadb-install-db failed: {(init.stderr or init.stdout).strip()[-300:]}")
        port = free_port()
        with (root / "server.log").open("w") as log:
            server = subprocess.Popen(
                [daemon, "--no-defaults", f"--datadir={root / 'data'}", *user, f"--port={port}",
                 "--bind-address=127.0.0.1", f"--socket={root / 'sock'}", f"--pid-file={root / 'pid'}",
                 "--skip-grant-tables", "--skip-log-bin", "--innodb-flush-log-at-trx-commit=0",
                 "--innodb-buffer-pool-size=16M", "--skip-name-resolve"],
                stdout=log, stderr=subprocess.STDOUT, cwd=root)

            def ready() -> bool:
                try:
                    pymysql.connect(host="127.0.0.1", port=port, user="root", connect_timeout=2).close()
                    return True
                except pymysql.err.OperationalError:
                    return False

            try:
                _wait(ready, server, root / "server.log", "MariaDB")
                conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
                with conn.cursor() as cur:
                    cur.execute("CREATE DATABASE shop")
                conn.close()
                yield f"mysql://root@127.0.0.1:{port}/shop"
            finally:
                _stop(server, signal.SIGTERM)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def fresh_database(server: str, prefix: str) -> str:
    """A new empty database on ``server`` (named ``prefix`` + random), as a URI."""
    import psycopg

    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.rsplit("/", 1)[0] + "/" + name
