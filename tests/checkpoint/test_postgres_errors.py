"""The PostgreSQL stores' errors say what happened: an unreachable server (named, the password
never shown), a missing database, a full disk or an I/O error on the server (data safe) told
apart from damaged data, and psycopg missing (the extra named)."""

from __future__ import annotations

import sys

import pytest

from crewgraph.checkpoint.location import display, open_batch_store, open_checkpoint_store
from crewgraph.errors import CheckpointError

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'crewgraph[postgres]')")


def test_an_unreachable_server_is_named_without_the_password() -> None:
    from _db_servers import free_port

    url = f"postgresql://crew:s3cret@127.0.0.1:{free_port()}/runs?connect_timeout=2"
    with pytest.raises(CheckpointError) as caught:
        open_checkpoint_store(url)
    text = str(caught.value)
    assert "cannot reach the PostgreSQL server 127.0.0.1" in text and "database runs" in text
    assert "s3cret" not in text and "crew:***@127.0.0.1" in text
    assert display(url) == url.replace("s3cret", "***")


def test_a_missing_database_says_so(postgres_server: str) -> None:
    url = postgres_server.rsplit("/", 1)[0] + "/no_such_db"
    with pytest.raises(CheckpointError, match=r"has no such database .*createdb"):
        open_batch_store(url)


@pytest.mark.parametrize(("error", "says", "not_says"), [
    (psycopg.errors.DiskFull, "disk is full", "restore the database"),
    (psycopg.errors.IoError, "input/output error", "restore the database"),
    (psycopg.errors.DataCorrupted, "damaged data", "nothing saved is lost"),
    (psycopg.errors.InsufficientPrivilege, "may not use the store's schema", "restore the database"),
])
def test_full_disk_and_io_errors_are_not_corruption(error: type[Exception], says: str, not_says: str) -> None:
    from crewgraph.checkpoint._postgres import pg_problem

    text = pg_problem("checkpoint store", "postgresql://app:pw@db.internal/runs", error("server said so"))
    assert says in text and not_says not in text and "pw@" not in text and "server said so" in text


def test_a_bad_schema_name_and_a_missing_psycopg(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CheckpointError, match="plain SQL name"):
        open_checkpoint_store('postgresql://h/db?schema=x";drop')
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(CheckpointError, match=r"pip install 'crewgraph\[postgres\]'"):
        open_checkpoint_store("postgresql://h/db")


def test_the_environment_url_is_the_default_store(monkeypatch: pytest.MonkeyPatch, postgres_store_url: str) -> None:
    from crewgraph.checkpoint import CheckpointConfig

    monkeypatch.setenv("CREWGRAPH_STORE_URL", postgres_store_url)
    config = CheckpointConfig()
    assert config.url == postgres_store_url and config.location == postgres_store_url
    assert CheckpointConfig(path="cp.db").url is None  # a path given wins over the environment
    with config.open_store() as store:
        assert type(store).__name__ == "PostgresCheckpointStore"
    monkeypatch.setenv("CREWGRAPH_STORE_URL", "mysql://nope")
    with pytest.raises(ValueError, match=r"CREWGRAPH_STORE_URL must be a postgresql:// URL"):
        CheckpointConfig()
