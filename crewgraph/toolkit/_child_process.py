"""Run a child process with a hard deadline, capped output and no survivors.

Why not ``subprocess.communicate``: it reads the whole output into memory
(300 MB of stdout is 300 MB in the parent, and more while decoding) and it
waits for end-of-file on the pipes, which a grandchild holding them keeps
open — a ``Popen(['sleep', '40'], start_new_session=True)`` inside the code
kept the caller 40 s, ``sleep infinity`` forever. Here one loop reads both
pipes with ``select`` until the deadline, keeps at most ``cap`` bytes of each
(counting, not storing, the rest), stops when the child has exited (whatever
still holds the pipes), and then kills everything the run started.

"Everything the run started": the child runs in its own session, and every
process started by the run inherits a marker in its environment. On exit the
process group, the session and every process carrying the marker (found in
``/proc``, so daemons that left the session or were re-parented are found
too) get SIGKILL, repeatedly until none is left. A process that scrubs its
environment *and* leaves the session escapes: this is cleanup, not a sandbox.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import time
from dataclasses import dataclass, field

from crewgraph._internal.reaper import MARKER_ENV, kill_marked, new_marker

__all__ = ["ChildResult", "StreamBuffer", "kill_run", "run_child"]


_EXIT_GRACE = 0.2
"""Seconds to keep reading after the child exited, for output still in the pipes."""


@dataclass
class StreamBuffer:
    """The first ``cap`` bytes of a stream, and how many more there were."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def feed(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))


@dataclass
class ChildResult:
    stdout: StreamBuffer
    stderr: StreamBuffer
    returncode: int | None
    timed_out: bool


def run_child(
    argv: list[str], *, cwd: str, timeout: float, cap_bytes: int, env: dict[str, str] | None = None
) -> ChildResult:
    """Run ``argv`` to completion or ``timeout`` seconds, whichever is first; kill what is left."""
    marker = new_marker()
    child_env = dict(os.environ if env is None else env)
    child_env[MARKER_ENV] = marker
    posix = os.name == "posix"
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=child_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=posix,
    )
    out, err = StreamBuffer(cap_bytes), StreamBuffer(cap_bytes)
    timed_out = False
    try:
        timed_out = _pump(proc, {proc.stdout: out, proc.stderr: err}, time.monotonic() + timeout)
    finally:
        kill_run(proc, marker)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
    return ChildResult(out, err, None if timed_out else proc.returncode, timed_out)


def _pump(proc: subprocess.Popen[bytes], buffers: dict[object, StreamBuffer], deadline: float) -> bool:
    """Read the pipes into ``buffers`` until both close, or the child exited (plus a short
    grace), or the deadline passes. True when the deadline stopped it."""
    selector = selectors.DefaultSelector()
    for pipe in buffers:
        selector.register(pipe, selectors.EVENT_READ)  # type: ignore[arg-type]
    exited_at: float | None = None
    try:
        while selector.get_map():
            now = time.monotonic()
            if now >= deadline:
                return proc.poll() is None
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at >= _EXIT_GRACE:
                break  # the child is done; whoever still holds the pipes is killed next
            wait = min(deadline - now, 0.05 if exited_at is not None else 0.25)
            for key, _ in selector.select(wait):
                chunk = os.read(key.fd, 65536)
                if chunk:
                    buffers[key.fileobj].feed(chunk)
                else:
                    selector.unregister(key.fileobj)
        if proc.poll() is None:  # pipes closed but the child still runs: wait for it
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                return True
        return False
    finally:
        selector.close()


def kill_run(proc: subprocess.Popen[bytes], marker: str) -> None:
    """SIGKILL the child's process group and session and every process carrying ``marker``."""
    if os.name != "posix":
        with contextlib.suppress(OSError):
            proc.kill()
        return
    kill_marked(marker, session=proc.pid)
