"""``GET /runs`` computed once per change of the stores, not once per reader.

Listing runs reads every run and its node records from SQLite and summarises them (about
0.5 s for 1,000 runs on a loaded 2-core machine). Two hundred readers polling at once each
redid that work on the server's threads, one after the other under the GIL, so the last of
them waited a minute. The list only changes when a store does, and SQLite says exactly when:
``PRAGMA data_version`` on a connection changes whenever another connection commits. So one
idle connection per database watches it, the summaries are kept with the versions they were
computed at (with a signature of the server's live jobs, which the list shows too), and
concurrent readers of a stale list wait for the one computing it (single flight) instead of
all computing it. A PostgreSQL store is watched by its runs' count and latest update
instead (:class:`_PGWatch`).

A body is cut from rows read for a bucket of limits (up to 200, the run page's, or up to
:data:`MAX_LIMIT`), and from the largest bucket's rows whenever those are fresh (encoding
1,000 rows is ~40 ms; reading and summarising them is 0.5-1 s). The server builds that list in the
background as it starts (:meth:`StoredRunsCache.warm`), so the first readers after a start do
not all wait for it.
"""

from __future__ import annotations

import gzip
import sqlite3
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

__all__ = ["MAX_LIMIT", "Body", "StoredRunsCache"]

MAX_LIMIT = 1000
"""The largest ``limit`` ``GET /runs`` accepts: the rows are read once for it."""


class _Watch:
    """``PRAGMA data_version`` of one database file, read on an idle connection of its own."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None

    def version(self) -> tuple[int, int] | None:
        """Changes whenever the database changes (``(0, 0)`` while the file does not exist);
        None when it cannot be watched."""
        try:
            stat = self.path.stat()
        except OSError:
            self.close()
            return (0, 0)
        if self._conn is None:
            try:
                self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                             timeout=5)
            except sqlite3.Error:
                return None
        try:
            row = self._conn.execute("PRAGMA data_version").fetchone()
        except sqlite3.Error:
            self.close()
            return None
        return int(row[0]), stat.st_ino  # a file replaced under the same name is another database

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class _PGWatch:
    """A PostgreSQL store's change marker: the runs' count and latest update in its schema
    (PostgreSQL has no ``data_version``; every save updates its run's ``updated_at``)."""

    _SQL = ("SELECT (SELECT count(*) FROM runs), (SELECT max(updated_at) FROM runs),"
            " (SELECT count(*) FROM flow_runs), (SELECT max(updated) FROM flow_runs)")

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None

    def version(self) -> tuple[Any, ...] | None:
        try:
            if self._conn is None or self._conn.closed:
                from crewgraph.checkpoint._postgres import connect

                self._conn = connect(self.url, "run list of")
            row = self._conn.execute(self._SQL).fetchone()
        except Exception:  # unreachable now: build afresh (the listing reports the error)
            self.close()
            return None
        return tuple(row)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class Body:
    """One serialised list, and its gzip form made on first demand (a tenth of the bytes)."""

    __slots__ = ("_gzipped", "_lock", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self._gzipped: bytes | None = None
        self._lock = threading.Lock()

    @property
    def gzipped(self) -> bytes:
        if self._gzipped is None:
            with self._lock:
                if self._gzipped is None:
                    self._gzipped = gzip.compress(self.raw, compresslevel=6)
        return self._gzipped


class StoredRunsCache:
    """The body of ``GET /runs`` for each ``(limit, kind)``, rebuilt when a store or a live job changed.

    The body is kept serialised, and compressed once for the clients that accept gzip (every
    browser): with 1,000 runs, encoding the JSON was itself ~40 ms a request and the answer
    479 KB (40 KB gzipped), which 200 readers at once turned into seconds."""

    def __init__(self, *paths: Path | str) -> None:
        from crewgraph.checkpoint.location import is_store_url

        self._watches: list[_Watch | _PGWatch] = []
        for p in paths:
            if not is_store_url(p):
                self._watches.append(_Watch(Path(p)))
            elif not any(isinstance(w, _PGWatch) and w.url == p for w in self._watches):
                self._watches.append(_PGWatch(str(p)))  # one schema holds crew and flow runs
        self._lock = threading.Lock()  # guards the watches and the entries
        self._entries: dict[Any, tuple[Any, Body]] = {}
        self._flights: dict[Any, threading.Lock] = {}

    def _versions(self, live: Hashable) -> Any:
        with self._lock:
            return (*(w.version() for w in self._watches), live)

    def get(self, key: Hashable, live: Hashable, build: Callable[[], bytes]) -> Body:
        """The body for ``key``: cached while no store changed and ``live`` (a signature of
        the server's own jobs) is the same, else from ``build()`` (run by one caller at a
        time per key; the others wait for its result, then find it fresh)."""
        body: Body = self.value(key, live, lambda: Body(build()))
        return body

    def value(self, key: Hashable, live: Hashable, build: Callable[[], Any]) -> Any:
        """Any value kept like a body (the run rows every limit is sliced from, for one)."""
        versions = self._versions(live)
        if None in versions:  # a store that cannot be watched: build it afresh
            return build()
        cached = self._fresh(key, versions)
        if cached is None:
            with self._lock:
                flight = self._flights.setdefault(key, threading.Lock())
            with flight:
                versions = self._versions(live)
                cached = self._fresh(key, versions)
                if cached is None:
                    cached = build()
                    with self._lock:
                        self._entries[key] = (versions, cached)
        return cached

    def peek(self, key: Hashable, live: Hashable) -> Any:
        """The value kept for ``key`` if it is still fresh, else None (nothing is built)."""
        versions = self._versions(live)
        return None if None in versions else self._fresh(key, versions)

    def _fresh(self, key: Any, versions: Any) -> Any:
        with self._lock:
            entry = self._entries.get(key)
        if entry is None or entry[0] != versions:
            return None
        return entry[1]

    def warm(self, build: Callable[[], Any]) -> threading.Thread:
        """Run ``build`` (which fills this cache) on a daemon thread now; a failure is logged and
        the first request builds the list instead."""

        def run() -> None:
            try:
                build()
            except Exception as exc:
                import logging

                logging.getLogger("crewgraph.ui").warning("could not prepare the run list at start: %s", exc)

        thread = threading.Thread(target=run, name="crewgraph-ui-warm", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        with self._lock:
            for watch in self._watches:
                watch.close()
            self._entries.clear()
