"""Where a store is: a SQLite file path or a ``postgresql://`` URL, and opening either.

Every place that takes a store path (``CheckpointConfig(path=...)``, ``crewgraph run --db``,
``crewgraph ui --db/--flow-db``, ``@persist``) also takes a PostgreSQL URL, and
``$CREWGRAPH_STORE_URL`` makes PostgreSQL the default for all of them. This module is the one
place that tells the two apart, so the SQLite code paths never import psycopg and the
PostgreSQL ones are chosen by the location alone (:mod:`crewgraph.checkpoint._postgres`).

A URL's password never appears in a message: :func:`display` shows it as ``***``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "STORE_URL_ENV",
    "Location",
    "display",
    "env_store_url",
    "is_store_url",
    "location_of",
    "open_batch_store",
    "open_checkpoint_store",
    "store_exists",
    "without_password",
]

STORE_URL_ENV = "CREWGRAPH_STORE_URL"
"""A ``postgresql://`` URL: the checkpoint, batch and flow stores of every run that is not
given a path of its own live in that database."""

_SCHEMES = ("postgresql://", "postgres://")

Location = Path | str
"""A SQLite file path, or a PostgreSQL URL (a ``str``)."""


def is_store_url(value: Any) -> bool:
    """Whether ``value`` names a PostgreSQL store (``postgresql://`` or ``postgres://``)."""
    return isinstance(value, str) and value.strip().lower().startswith(_SCHEMES)


def env_store_url() -> str | None:
    """``$CREWGRAPH_STORE_URL`` when set (read at call time); any other scheme is an error."""
    raw = os.environ.get(STORE_URL_ENV, "").strip()
    if not raw:
        return None
    if not is_store_url(raw):
        raise ValueError(f"${STORE_URL_ENV} must be a postgresql:// URL, not {display(raw)!r} "
                         "(unset it to keep the stores in SQLite files)")
    return raw


def display(location: Location) -> str:
    """``location`` for messages: a path as is, a URL with its password replaced by ``***``."""
    if not is_store_url(location):
        return str(location)
    parts = urlsplit(str(location).strip())
    if parts.password is None:
        return urlunsplit(parts)
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def without_password(location: Location) -> Location:
    """``location`` fit to be written to a file: a URL without its password (libpq then takes it
    from ``$PGPASSWORD`` or ``~/.pgpass`` when the URL is opened again), a path as is."""
    if not is_store_url(location):
        return location
    parts = urlsplit(str(location).strip())
    if parts.password is None:
        return str(location)
    host = parts.netloc.rsplit("@", 1)[1]
    user = parts.netloc.rsplit("@", 1)[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}@{host}" if user else host))


def location_of(store: Any) -> Location:
    """The location a store was opened on (a PostgreSQL store's full URL, a SQLite store's path)."""
    url = getattr(store, "url", None)
    return str(url) if isinstance(url, str) else Path(store.path)


def store_exists(location: Location) -> bool:
    """Whether there is a store to read at ``location`` without creating one: a SQLite file that
    exists; a URL always (its tables are created on first open, empty)."""
    return True if is_store_url(location) else Path(location).is_file()


def open_checkpoint_store(location: Location, *, keep_last: int | None = None) -> Any:
    """The checkpoint store at ``location`` (a ``SQLiteCheckpointStore`` or ``PostgresCheckpointStore``)."""
    if is_store_url(location):
        from crewgraph.checkpoint._postgres_stores import PostgresCheckpointStore

        return PostgresCheckpointStore(str(location), keep_last=keep_last)
    from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore

    return SQLiteCheckpointStore(location, keep_last=keep_last)


def open_batch_store(location: Location) -> Any:
    """The batch store at ``location`` (``BatchStore`` on SQLite, ``PostgresBatchStore``)."""
    if is_store_url(location):
        from crewgraph.checkpoint._postgres_stores import PostgresBatchStore

        return PostgresBatchStore(str(location))
    from crewgraph.checkpoint.batch_store import BatchStore

    return BatchStore(location)
