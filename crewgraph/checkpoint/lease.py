"""Leases: exactly one process owns a run while it runs, resumes or answers it.

Without a record of who owns a run, a live run looks exactly like a crashed one, so a
second process resuming it (a second ``from_checkpoint=True``, two answers to one review,
two resumers of one batch) ran the same steps twice. A *lease* is that record: a row per
resource (``run:<id>``, ``batch:<id>:<index>``) holding its holder and an expiry, taken and
renewed only by compare-and-set in the store (:class:`LeaseBackend`; SQLite's
``BEGIN IMMEDIATE`` on one machine, row locks on a server database). While the holder runs,
one background thread per process renews its leases (never a write per node: the
scheduler's hot path is untouched). A holder that dies stops renewing, so its lease expires
and the run can be taken over exactly once. On the same machine a holder that is known to be
gone (its process no longer exists) is taken over at once, without waiting for the expiry.

A second process gets :class:`RunLeasedError` naming the holder and when its lease expires,
or waits for it (``CheckpointConfig(lease_wait=seconds)``, bounded) when asked to.

*Fencing.* Expiry alone does not stop a holder that was only stalled (SIGSTOP, a suspended
VM, a long GC pause): when it wakes it would finish its node and save over the work of the
process that took the run over. So every checkpoint write of a leased run is fenced: the
store checks, in the write's own transaction where it can (SQLite: the lease row is in the
same file), that the lease row still carries this holder's token, and otherwise refuses the
write with :class:`LeaseLostError` (:class:`Fences`, :func:`fence_check`). The holder stops
there; nothing it computed after losing the lease is recorded.

This module is the lease's logic (identity, waiting, renewal, the error); each store
supplies only its compare-and-set (:class:`LeaseBackend`), see
:mod:`crewgraph.checkpoint._sqlite_leases`.
"""

from __future__ import annotations

import contextvars
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from crewgraph.errors import CheckpointError

__all__ = [
    "DEFAULT_LEASE_SECONDS",
    "LEASE_SECONDS_ENV",
    "LEASE_WAIT_ENV",
    "Fences",
    "LeaseBackend",
    "LeaseHolder",
    "LeaseKeeper",
    "LeaseLostError",
    "RunLeasedError",
    "UnleasedStoreWarning",
    "aacquire_lease",
    "acquire_lease",
    "fence_check",
    "held_lease",
    "holding",
    "me",
]

logger = logging.getLogger("crewgraph.checkpoint")

DEFAULT_LEASE_SECONDS = 30.0
"""How long a lease lasts without renewal: the longest a crashed holder blocks a resume on
another machine (renewed every third of it while the holder lives)."""
LEASE_SECONDS_ENV = "CREWGRAPH_LEASE_SECONDS"
LEASE_WAIT_ENV = "CREWGRAPH_LEASE_WAIT"


@dataclass(frozen=True)
class LeaseHolder:
    """Who holds (or asks for) a lease: a token unique to one acquisition, the readable
    ``host pid N``, and what tells on this machine whether that process still exists."""

    token: str
    name: str
    machine: str
    pid: int
    started: str


@dataclass(frozen=True)
class HeldBy:
    """A lease someone else holds, as the store has it."""

    resource: str
    holder: str
    expires_at: float

    def describe(self) -> str:
        left = max(0.0, self.expires_at - time.time())
        when = datetime.fromtimestamp(self.expires_at, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return f"{self.holder} (its lease expires at {when}, in {left:.1f} s unless it renews it)"


class RunLeasedError(CheckpointError):
    """Another live process holds the lease on this run (or batch input)."""

    def __init__(self, message: str, *, resource: str, holder: str, expires_at: float) -> None:
        super().__init__(message)
        self.resource = resource
        self.holder = holder
        self.expires_at = expires_at


class LeaseLostError(CheckpointError):
    """This process's lease on a run expired and another process took the run over: this
    process must stop without writing (its writes would overwrite the new holder's work)."""

    def __init__(self, message: str, *, resource: str, holder: str | None) -> None:
        super().__init__(message)
        self.resource = resource
        self.holder = holder
        """Who holds the lease now (None: nobody, the taker finished and let it go)."""


class UnleasedStoreWarning(UserWarning):
    """A store that cannot lease runs (no ``lease_backend()``): two processes resuming the same
    run could both run it. Said once per store class; filter it where one process is certain."""


class LeaseBackend(Protocol):
    """The compare-and-set a store implements; everything else is this module's."""

    where: str
    """The store, for messages (its path or URL, no secrets)."""

    def try_acquire(self, resource: str, holder: LeaseHolder, ttl: float) -> HeldBy | None:
        """Take ``resource`` for ``holder`` until now + ``ttl`` when it is free, expired, already
        this holder's, or held by a process of this machine that is gone; else who holds it."""
        ...

    def renew(self, resource: str, holder: LeaseHolder, ttl: float) -> bool:
        """Extend ``holder``'s lease; False when it is no longer ``holder``'s."""
        ...

    def release(self, resource: str, holder: LeaseHolder) -> None:
        """Drop ``holder``'s lease (nothing when it holds none)."""
        ...

    def close(self) -> None: ...


# ---------------------------------------------------------------------- who we are
def _proc_started(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), '' where unknown: with the
    pid it names one process, so a reused pid is not taken for the old holder."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return ""
    return fields[19] if len(fields) > 19 else ""


def _machine() -> str:
    """This machine as pids mean it: the host name and the pid namespace (two containers
    sharing a host name and a volume do not see each other's processes)."""
    try:
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        namespace = ""
    return f"{socket.gethostname()}/{namespace}"


def me() -> LeaseHolder:
    """A new holder identity for one acquisition by this process."""
    pid = os.getpid()
    return LeaseHolder(token=secrets.token_hex(8), name=f"{socket.gethostname()} pid {pid}",
                       machine=_machine(), pid=pid, started=_proc_started(pid))


def process_gone(machine: str, pid: int, started: str) -> bool:
    """True only when the holder ran on this machine and its process is certainly gone
    (no such pid, a zombie, or a different process under a reused pid)."""
    if machine != _machine() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # exists, another user's
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    if state in ("Z", "X"):
        return True
    return bool(started) and _proc_started(pid) not in ("", started)


# ---------------------------------------------------------------------- renewal
class _Renewer:
    """One daemon thread per process renewing every live lease at a third of its term."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keepers: set[LeaseKeeper] = set()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, keeper: LeaseKeeper) -> None:
        with self._lock:
            self._keepers.add(keeper)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="crewgraph-leases", daemon=True)
                self._thread.start()
        self._wake.set()

    def remove(self, keeper: LeaseKeeper) -> None:
        with self._lock:
            self._keepers.discard(keeper)

    def _loop(self) -> None:
        while True:
            with self._lock:
                keepers = list(self._keepers)
            now = time.monotonic()
            for keeper in keepers:
                if keeper.due <= now:
                    keeper.renew()
            with self._lock:
                dues = [k.due for k in self._keepers]
            self._wake.clear()
            self._wake.wait(timeout=max(0.01, min(dues) - time.monotonic()) if dues else 5.0)


_RENEWER = _Renewer()


class LeaseKeeper:
    """A lease this process holds: renewed in the background until :meth:`release`."""

    def __init__(self, backend: LeaseBackend, resource: str, holder: LeaseHolder, ttl: float,
                 *, owns_backend: bool) -> None:
        self.backend = backend
        self.resource = resource
        self.holder = holder
        self.ttl = ttl
        self.lost = False
        self.released = False
        self._owns_backend = owns_backend
        self.due = time.monotonic() + ttl / 3

    def renew(self) -> None:
        """Called by the renewal thread; a lost lease is logged (another process took it after it
        expired: this process stalled longer than the lease)."""
        if self.released or self.lost:
            return
        self.due = time.monotonic() + self.ttl / 3
        try:
            kept = self.backend.renew(self.resource, self.holder, self.ttl)
        except Exception as exc:  # a busy or unreachable store: try again at the next tick
            logger.warning("could not renew the lease on %s in %s: %s", self.resource, self.backend.where, exc)
            self.due = time.monotonic() + min(1.0, self.ttl / 6)
            return
        if not kept:
            self.lost = True
            _RENEWER.remove(self)
            logger.error("the lease on %s in %s was lost: it expired (this process stalled longer than %.1f s) "
                         "and another process may have taken the run over", self.resource, self.backend.where, self.ttl)

    def verify(self) -> None:
        """Fence a write by compare-and-set through the backend (the holder's token still on the
        lease, extended by one term), for a store whose writes cannot check the lease row in their
        own transaction; :class:`LeaseLostError` when another process has it."""
        if self.lost:
            raise self.lost_error(None)
        if self.released:
            return
        try:
            kept = self.backend.renew(self.resource, self.holder, self.ttl)
        except Exception as exc:
            raise CheckpointError(f"could not check the lease on {self.resource} in {self.backend.where} "
                                  f"before writing: {exc}") from exc
        if not kept:
            self.mark_lost()
            raise self.lost_error(None)

    def mark_lost(self) -> None:
        """Record that the lease is no longer this process's (found by a fenced write)."""
        if not self.lost:
            self.lost = True
            _RENEWER.remove(self)

    def lost_error(self, now_held_by: str | None) -> LeaseLostError:
        """The error a fenced write raises once the lease is lost."""
        by = f"{now_held_by} holds it now" if now_held_by else "another process took it (and has let it go since)"
        return LeaseLostError(
            f"this process ({self.holder.name}) lost its lease on {self.resource} in {self.backend.where}: "
            f"it stalled (paused, suspended or starved) for longer than the lease's {self.ttl:g} s, the lease "
            f"expired and {by}. It stops here without saving, so it does not overwrite that process's work; "
            "the run's result is the one the new holder records (raise lease_seconds if this process "
            "stalls that long in normal work).",
            resource=self.resource, holder=now_held_by)

    def release(self) -> None:
        """Give the lease up (idempotent); a failure is logged, the lease then simply expires."""
        if self.released:
            return
        self.released = True
        _RENEWER.remove(self)
        try:
            if not self.lost:
                self.backend.release(self.resource, self.holder)
        except Exception as exc:
            logger.warning("could not release the lease on %s (%s); it expires in %.1f s", self.resource, exc, self.ttl)
        finally:
            if self._owns_backend:
                self.backend.close()

    def __enter__(self) -> LeaseKeeper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire_lease(backend: LeaseBackend, resource: str, *, ttl: float, wait: float = 0.0,
                  what: str | None = None, owns_backend: bool = False) -> LeaseKeeper:
    """Take the lease on ``resource``, waiting up to ``wait`` seconds for its holder to let go.

    Raises :class:`RunLeasedError` naming the holder and its expiry when it stays held.
    ``what`` names the resource in that message (e.g. "crew run 'abc'").
    """
    if ttl <= 0:
        raise ValueError("a lease needs a positive duration (lease_seconds)")
    holder = me()
    deadline = time.monotonic() + max(0.0, wait)
    pause = min(0.25, ttl / 4)
    said = False
    try:
        while True:
            held = backend.try_acquire(resource, holder, ttl)
            if held is None:
                keeper = LeaseKeeper(backend, resource, holder, ttl, owns_backend=owns_backend)
                _RENEWER.add(keeper)
                return keeper
            left = deadline - time.monotonic()
            if left <= 0:
                raise _held_error(held, what or resource, backend.where, waited=wait)
            if not said:  # the first refusal: say once whom this waits for
                said = True
                logger.info("waiting up to %g s for the lease on %s in %s: %s", wait, resource, backend.where,
                            held.describe())
            time.sleep(min(pause, left))
    except BaseException:
        if owns_backend:
            backend.close()
        raise


async def aacquire_lease(backend: LeaseBackend, resource: str, *, ttl: float, wait: float = 0.0,
                         what: str | None = None, owns_backend: bool = False) -> LeaseKeeper:
    """:func:`acquire_lease` for the event loop: each attempt is one short transaction, and the
    wait between attempts is an ``asyncio.sleep`` (a cancelled waiter never leaves a lease behind)."""
    import asyncio

    deadline = time.monotonic() + max(0.0, wait)
    pause = min(0.25, ttl / 4)
    said = False
    try:
        while True:
            try:
                keeper = acquire_lease(backend, resource, ttl=ttl, wait=0.0, what=what, owns_backend=False)
                keeper._owns_backend = owns_backend  # closed with the lease from now on
                return keeper
            except RunLeasedError as exc:
                left = deadline - time.monotonic()
                if left > 0 and not said:  # the first refusal: say once whom this waits for
                    said = True
                    logger.info("waiting up to %g s for the lease on %s in %s: %s", wait, resource, backend.where,
                                exc.holder)
                if left <= 0:
                    if wait <= 0:
                        raise
                    raise RunLeasedError(
                        str(exc).replace(" is being run by another process:", f" is being run by another process "
                                         f"after waiting {wait:g} s:", 1),
                        resource=exc.resource, holder=exc.holder, expires_at=exc.expires_at) from None
            await asyncio.sleep(min(pause, left))
    except BaseException:
        if owns_backend:
            backend.close()
        raise


def _held_error(held: HeldBy, what: str, where: str, *, waited: float) -> RunLeasedError:
    after = f" after waiting {waited:g} s" if waited > 0 else ""
    return RunLeasedError(
        f"{what} is being run by another process{after}: {held.describe()}, in {where}. "
        "Two processes must not run it at once (each would repeat the other's steps). Wait for it to finish, "
        "or ask to wait for the lease (CheckpointConfig(lease_wait=SECONDS) or $CREWGRAPH_LEASE_WAIT); "
        "if that process died, its lease expires by itself and the run can then be resumed.",
        resource=held.resource, holder=held.holder, expires_at=held.expires_at,
    )


# ---------------------------------------------------------------------- fencing
def fence_check(keeper: LeaseKeeper, row: tuple[str, str] | None) -> None:
    """Refuse a write when the lease row (``(token, holder)`` read in the write's transaction,
    None when there is none) is not ``keeper``'s any more."""
    if keeper.lost:
        raise keeper.lost_error(row[1] if row is not None and row[0] != keeper.holder.token else None)
    if row is None or row[0] != keeper.holder.token:
        keeper.mark_lost()
        raise keeper.lost_error(row[1] if row is not None else None)


class Fences:
    """A store's fenced writes: ``fence(key, keeper)`` makes every write the store does for
    ``key`` (a run id, a batch input) first check that ``keeper``'s lease is still held."""

    _fence_map: dict[str, LeaseKeeper] | None = None

    @contextmanager
    def fence(self, key: str, keeper: LeaseKeeper | None) -> Iterator[None]:
        """Writes for ``key`` are fenced by ``keeper`` inside the block (nothing when None)."""
        if keeper is None:
            yield
            return
        if self._fence_map is None:
            self._fence_map = {}
        previous = self._fence_map.get(key)
        self._fence_map[key] = keeper
        try:
            yield
        finally:
            if previous is None:
                self._fence_map.pop(key, None)
            else:
                self._fence_map[key] = previous

    def fence_for(self, key: str) -> LeaseKeeper | None:
        """The lease fencing writes for ``key``, if any."""
        return None if self._fence_map is None else self._fence_map.get(key)


# ---------------------------------------------------------------------- leases held by this run
_HELD: contextvars.ContextVar[dict[str, LeaseKeeper] | None] = contextvars.ContextVar("crewgraph_leases", default=None)


def held_lease(resource: str) -> LeaseKeeper | None:
    """The live lease on ``resource`` this task already holds (a caller that leased a run before
    recording a review answer hands it on to the run it starts)."""
    keeper = (_HELD.get() or {}).get(resource)
    return keeper if keeper is not None and not keeper.released else None


@contextmanager
def holding(keeper: LeaseKeeper) -> Iterator[LeaseKeeper]:
    """Make ``keeper`` visible to :func:`held_lease` in this context; released on exit."""
    token = _HELD.set({**(_HELD.get() or {}), keeper.resource: keeper})
    try:
        yield keeper
    finally:
        _HELD.reset(token)
        keeper.release()
