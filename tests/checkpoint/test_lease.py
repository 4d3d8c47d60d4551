"""The lease itself: compare-and-set, renewal in the background, bounded waits, expiry, loss."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.checkpoint._sqlite_leases import SQLiteLeases
from crewgraph.checkpoint.lease import RunLeasedError, acquire_lease, me, process_gone


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "cp.db"
    SQLiteCheckpointStore(path).close()
    return path


def test_a_held_lease_is_refused_naming_the_holder_and_freed_by_release(db: Path) -> None:
    mine = acquire_lease(SQLiteLeases(db), "run:a", ttl=5.0, what="crew run 'a'", owns_backend=True)
    with pytest.raises(RunLeasedError) as caught:
        acquire_lease(SQLiteLeases(db), "run:a", ttl=5.0, what="crew run 'a'", owns_backend=True)
    assert caught.value.holder == me().name and "crew run 'a' is being run by another process" in str(caught.value)
    assert 0 < caught.value.expires_at - time.time() <= 5.0
    acquire_lease(SQLiteLeases(db), "run:b", ttl=5.0, owns_backend=True).release()  # other resources are free
    mine.release()
    mine.release()  # idempotent
    acquire_lease(SQLiteLeases(db), "run:a", ttl=5.0, owns_backend=True).release()


def test_renewal_keeps_a_short_lease_and_a_wait_is_bounded(db: Path) -> None:
    mine = acquire_lease(SQLiteLeases(db), "run:a", ttl=0.4, owns_backend=True)
    try:
        start = time.monotonic()
        with pytest.raises(RunLeasedError, match=r"after waiting 0\.8 s"):
            acquire_lease(SQLiteLeases(db), "run:a", ttl=0.4, wait=0.8, owns_backend=True)
        assert 0.8 <= time.monotonic() - start < 3.0  # waited, well past the unrenewed expiry, then gave up
    finally:
        mine.release()


def test_an_unrenewed_lease_expires_and_its_old_holder_learns_it_lost_it(
        db: Path, caplog: pytest.LogCaptureFixture) -> None:
    backend = SQLiteLeases(db)
    holder = me()
    assert backend.try_acquire("run:a", holder, 0.3) is None  # taken, never renewed (a stalled holder)
    assert backend.try_acquire("run:a", me(), 0.3) is not None
    time.sleep(0.4)
    taker = acquire_lease(SQLiteLeases(db), "run:a", ttl=5.0, owns_backend=True)
    assert backend.renew("run:a", holder, 0.3) is False  # the compare-and-set fails for the old holder
    with caplog.at_level(logging.ERROR, logger="crewgraph.checkpoint"):
        from crewgraph.checkpoint.lease import LeaseKeeper

        stale = LeaseKeeper(backend, "run:a", holder, 0.3, owns_backend=True)
        stale.renew()
    assert stale.lost and "was lost" in caplog.text
    stale.release()  # does not delete the new holder's lease
    with pytest.raises(RunLeasedError):
        acquire_lease(SQLiteLeases(db), "run:a", ttl=5.0, owns_backend=True)
    taker.release()


def test_a_gone_process_on_this_machine_is_known_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    holder = me()
    assert process_gone(holder.machine, child.pid, "") is True
    assert process_gone(holder.machine, holder.pid, holder.started) is False
    assert process_gone("another-host/1", child.pid, "") is False  # another machine: only expiry frees it
