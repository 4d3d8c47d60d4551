"""The lease itself: compare-and-set, renewal in the background, bounded waits, expiry, loss
(each on SQLite and on PostgreSQL: ``leases`` opens the backend of either)."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from crewgraph.checkpoint.lease import RunLeasedError, acquire_lease, me, process_gone
from crewgraph.checkpoint.location import open_checkpoint_store


@pytest.fixture
def leases(store_location: Path | str) -> Callable[[], Any]:
    """A new lease backend on the test's store (each call: another connection, as another process has)."""
    with open_checkpoint_store(store_location) as store:
        return lambda: store.lease_backend()


def test_a_held_lease_is_refused_naming_the_holder_and_freed_by_release(leases: Callable[[], Any]) -> None:
    mine = acquire_lease(leases(), "run:a", ttl=5.0, what="crew run 'a'", owns_backend=True)
    with pytest.raises(RunLeasedError) as caught:
        acquire_lease(leases(), "run:a", ttl=5.0, what="crew run 'a'", owns_backend=True)
    assert caught.value.holder == me().name and "crew run 'a' is being run by another process" in str(caught.value)
    assert 0 < caught.value.expires_at - time.time() <= 5.0
    acquire_lease(leases(), "run:b", ttl=5.0, owns_backend=True).release()  # other resources are free
    mine.release()
    mine.release()  # idempotent
    acquire_lease(leases(), "run:a", ttl=5.0, owns_backend=True).release()


def test_renewal_keeps_a_short_lease_and_a_wait_is_bounded(leases: Callable[[], Any]) -> None:
    mine = acquire_lease(leases(), "run:a", ttl=0.4, owns_backend=True)
    try:
        start = time.monotonic()
        with pytest.raises(RunLeasedError, match=r"after waiting 0\.8 s"):
            acquire_lease(leases(), "run:a", ttl=0.4, wait=0.8, owns_backend=True)
        assert time.monotonic() - start >= 0.8  # waited, well past the unrenewed expiry, then gave up
    finally:
        mine.release()


def test_an_unrenewed_lease_expires_and_its_old_holder_learns_it_lost_it(
        leases: Callable[[], Any], caplog: pytest.LogCaptureFixture) -> None:
    backend = leases()
    holder = me()
    assert backend.try_acquire("run:a", holder, 0.3) is None  # taken, never renewed (a stalled holder)
    assert backend.try_acquire("run:a", me(), 0.3) is not None
    time.sleep(0.4)
    taker = acquire_lease(leases(), "run:a", ttl=5.0, owns_backend=True)
    assert backend.renew("run:a", holder, 0.3) is False  # the compare-and-set fails for the old holder
    with caplog.at_level(logging.ERROR, logger="crewgraph.checkpoint"):
        from crewgraph.checkpoint.lease import LeaseKeeper

        stale = LeaseKeeper(backend, "run:a", holder, 0.3, owns_backend=True)
        stale.renew()
    assert stale.lost and "was lost" in caplog.text
    stale.release()  # does not delete the new holder's lease
    with pytest.raises(RunLeasedError):
        acquire_lease(leases(), "run:a", ttl=5.0, owns_backend=True)
    taker.release()


def test_a_gone_process_on_this_machine_is_known_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    holder = me()
    assert process_gone(holder.machine, child.pid, "") is True
    assert process_gone(holder.machine, holder.pid, holder.started) is False
    assert process_gone("another-host/1", child.pid, "") is False  # another machine: only expiry frees it
