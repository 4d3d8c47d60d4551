"""Helpers for tests that race real processes over one SQLite store (shared by the crew and
flow lease races)."""

from __future__ import annotations

import os
import signal
import time


def stop_outside_a_write(pid: int, db: str, tries: int = 50) -> None:
    """SIGSTOP ``pid`` at an instant it holds no SQLite write lock on ``db``: a process stopped
    inside a write transaction (a lease renewal, a save) keeps the file's write lock, and no other
    process can write it, take the lease over included, until it continues (documented)."""
    import sqlite3

    for _ in range(tries):
        os.kill(pid, signal.SIGSTOP)
        wait_stopped(pid)
        try:
            conn = sqlite3.connect(db, timeout=0.05, isolation_level=None)
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("ROLLBACK")
                return
            finally:
                conn.close()
        except sqlite3.OperationalError:
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.01)
    raise AssertionError(f"process {pid} kept the write lock of {db} in {tries} tries")


def wait_stopped(pid: int, timeout: float = 30.0) -> None:
    """Wait until every thread of ``pid`` is stopped. ``kill(SIGSTOP)`` returns before that: the
    thread the signal goes to stops the others only once it runs (a thread inside ``fsync`` first
    finishes it), and meanwhile another thread (the lease renewal) can still begin a write."""
    deadline = time.monotonic() + timeout
    while True:
        states = []
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/stat", encoding="ascii", errors="replace") as fh:
                    states.append(fh.read().rsplit(")", 1)[1].split()[0])
            except (OSError, IndexError):
                continue  # a thread that just ended
        if states and all(state in ("T", "t") for state in states):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} was not stopped {timeout} s after SIGSTOP: thread states {states}")
        time.sleep(0.001)
