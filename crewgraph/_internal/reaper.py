"""Killing every process a run started, including the ones that left its session.

A child that daemonises (``start_new_session=True``, a double fork) is no longer in the
process group or session of the process that started it, so killing those misses it. Every
process started for a run therefore inherits a marker in its environment (``MARKER_ENV``,
its value the run's id), and :func:`kill_marked` SIGKILLs the session's members and every
process whose environment carries the marker (found in ``/proc``), repeatedly until none is
left. A process that scrubs its environment *and* leaves the session escapes: this is
cleanup, not a sandbox. Used by the code tools' child processes and by stdio MCP servers.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

__all__ = ["MARKER_ENV", "kill_marked", "marked_processes", "new_marker"]

MARKER_ENV = "CREWGRAPH_CHILD_RUN"
"""Environment variable every process of one run inherits (its value is the run's id)."""


def new_marker() -> str:
    """A fresh value for :data:`MARKER_ENV`."""
    return uuid.uuid4().hex


def kill_marked(marker: str, session: int | None = None) -> None:
    """SIGKILL the process group and session ``session`` (when given) and every process carrying
    ``marker``, until none is left (bounded: processes forking while we kill get a few more rounds)."""
    if os.name != "posix":
        return
    if session is not None:
        with contextlib.suppress(OSError):
            os.killpg(session, signal.SIGKILL)
    for _ in range(50):
        victims = marked_processes(marker, session)
        if not victims:
            return
        for pid in victims:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def marked_processes(marker: str, session: int | None = None) -> list[int]:
    """Live processes (not zombies) in ``session`` or whose environment carries ``marker``."""
    proc_root = Path("/proc")
    if not proc_root.is_dir():
        return []
    me = os.getpid()
    needle = f"{MARKER_ENV}={marker}".encode()
    found: list[int] = []
    for entry in proc_root.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            stat = (entry / "stat").read_text()
            # fields after the parenthesised command: state ppid pgrp session ...
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] in ("Z", "X"):
                continue
            if session is not None and (int(fields[2]) == session or int(fields[3]) == session):
                found.append(int(entry.name))
                continue
            if needle in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found
