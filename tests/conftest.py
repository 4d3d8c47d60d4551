"""Fixtures shared by every test folder: one real PostgreSQL server per test session.

The server (Debian's package, a temporary data dir, 127.0.0.1 on a free port; see
``_db_servers.py``) starts on first use and serves every module that needs it: each takes a
database (``_db_servers.fresh_database``) or a schema of its own, so one server is enough, and the
suite pays its start (about a second) once per worker.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from _db_servers import serve_postgres


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """``postgresql://crew@127.0.0.1:PORT/postgres`` of the session's server (skipped, saying why,
    when PostgreSQL or psycopg is not installed)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'crewgraph[postgres]')")
    yield from serve_postgres()


@pytest.fixture
def postgres_store_url(postgres_server: str) -> str:
    """A store URL with a schema of its own for this test (``?schema=t_RANDOM``)."""
    return f"{postgres_server}?schema=t_{secrets.token_hex(6)}"
