"""The lease compare-and-set on PostgreSQL: one ``leases`` table in the store's schema.

Taking a lease is one statement, ``INSERT ... ON CONFLICT (resource) DO UPDATE ... WHERE the
lease is this holder's or has expired``: PostgreSQL locks the conflicting row, so of two
processes (on any machines) racing for a free or expired lease exactly one gets the row back;
the other waits for the first's commit, re-checks the condition and gets nothing. A lease
held by a process of *this* machine that is certainly gone (SIGKILLed) is taken over at once
by a second compare-and-set on the dead holder's token. Expiry is the server's clock
(``clock_timestamp()``), so machines whose clocks differ still agree on it.

Its own autocommit connection (not the store's), so the renewal thread never queues behind a
store transaction; a dropped connection is reopened on the next call.
"""

from __future__ import annotations

import threading
from typing import Any

from crewgraph.checkpoint._postgres import connect, pg_problem, psycopg_module
from crewgraph.checkpoint.lease import HeldBy, LeaseHolder, process_gone
from crewgraph.checkpoint.location import display
from crewgraph.errors import CheckpointError

__all__ = ["PostgresLeases"]

_NOW = "extract(epoch FROM clock_timestamp())::double precision"
_TAKE = f"""
INSERT INTO leases AS l (resource, token, holder, machine, pid, started, acquired_at, expires_at)
VALUES (%s, %s, %s, %s, %s, %s, {_NOW}, {_NOW} + %s)
ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder,
    machine = EXCLUDED.machine, pid = EXCLUDED.pid, started = EXCLUDED.started,
    acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at
WHERE l.token = EXCLUDED.token OR l.expires_at <= EXCLUDED.acquired_at
RETURNING l.resource
"""
_TAKE_FROM = f"""
UPDATE leases SET token = %s, holder = %s, machine = %s, pid = %s, started = %s,
    acquired_at = {_NOW}, expires_at = {_NOW} + %s
WHERE resource = %s AND token = %s
RETURNING resource
"""
_ATTEMPTS = 5  # a lease released or taken between the two statements: look again


class PostgresLeases:
    """:class:`~crewgraph.checkpoint.lease.LeaseBackend` in the PostgreSQL store at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = repr(display(url))
        self._lock = threading.Lock()
        self._conn: Any = connect(url, "lease table of")

    def try_acquire(self, resource: str, holder: LeaseHolder, ttl: float) -> HeldBy | None:
        me = (holder.token, holder.name, holder.machine, holder.pid, holder.started)
        for _ in range(_ATTEMPTS):
            if self._run(_TAKE, (resource, *me, ttl)) is not None:
                return None
            row = self._run("SELECT token, holder, machine, pid, started, expires_at FROM leases"
                            " WHERE resource = %s", (resource,))
            if row is None:
                continue  # released meanwhile: take it
            token, name, machine, pid, started, expires = row
            if not process_gone(machine, int(pid), started):
                return HeldBy(resource, str(name), float(expires))
            if self._run(_TAKE_FROM, (*me, ttl, resource, token)) is not None:
                return None
        raise CheckpointError(f"the lease on {resource} in {self.where} changed hands {_ATTEMPTS} times while "
                              "this process tried to take it; try again")

    def renew(self, resource: str, holder: LeaseHolder, ttl: float) -> bool:
        row = self._run(f"UPDATE leases SET expires_at = {_NOW} + %s WHERE resource = %s AND token = %s"
                        " RETURNING resource", (ttl, resource, holder.token))
        return row is not None

    def release(self, resource: str, holder: LeaseHolder) -> None:
        self._run("DELETE FROM leases WHERE resource = %s AND token = %s RETURNING resource",
                  (resource, holder.token))

    def holder_of(self, resource: str) -> HeldBy | None:
        """Who holds ``resource`` now (None: nobody, or an expired lease)."""
        row = self._run(f"SELECT holder, expires_at FROM leases WHERE resource = %s AND expires_at > {_NOW}",
                        (resource,))
        return None if row is None else HeldBy(resource, str(row[0]), float(row[1]))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _run(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """One autocommit statement; its first row (None: no row)."""
        psycopg = psycopg_module()
        with self._lock:
            if self._conn is None:
                raise CheckpointError(f"the lease table of {self.where} is closed")
            if self._conn.closed or getattr(self._conn, "broken", False):
                self._conn = connect(self.url, "lease table of")
            try:
                row = self._conn.execute(sql, params).fetchone()
            except psycopg.Error as exc:
                raise CheckpointError(pg_problem("lease table of", self.url, exc)) from exc
        return None if row is None else tuple(row)
