"""A Python with the heavy imports done once, forking one child per program to run.

Tests that start many short Python processes (every doc file's blocks, the race trials) paid
0.4 - 2 s of CPU in each one importing crewgraph, pydantic and the openai SDK before doing
anything. ``ForkServer(preload=[...])`` starts one interpreter that imports those modules and
then only forks: each ``run``/``start`` is a new process (its own pid, working directory,
environment, stdin/stdout/stderr files, exit status, signals, atexit handlers and interpreter
shutdown) running ``python script.py args`` / ``python -c code`` / ``python -m module`` as
written, except that the preloaded modules are already in ``sys.modules``. The server runs no
program code, starts no thread and opens no connection before it forks, so a child inherits
nothing but imported modules.

The child is the server's child, not the test's: ``ForkedProcess`` gives what the tests used
of ``subprocess.Popen`` (``pid``, ``poll``, ``wait``, ``send_signal``, ``kill``,
``returncode``) with the exit status relayed by the server (a signal's death is ``-signum``,
as Popen reports it).

Run as a script, this file is the server: preload modules on the command line, one JSON
request per line on stdin, one JSON reply per line on stdout.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


# --------------------------------------------------------------------------- the server side


def _path_entries(value: str | None) -> list[str]:
    return [p for p in (value or "").split(os.pathsep) if p]


# sys.path without this script's folder and without what $PYTHONPATH added: a child puts its
# own program's folder and its own $PYTHONPATH in front, as its interpreter would have.
_BASE_PATH: list[str] = []


def _serve() -> dict[str, Any] | None:
    """Fork one child per request until stdin closes. Returns the request in a child (which
    then runs it at the top level of this script), None in the server when it is done."""
    added = set(_path_entries(os.environ.get("PYTHONPATH")))
    _BASE_PATH[:] = [p for p in sys.path[1:] if p not in added]
    for name in sys.argv[1:]:
        try:
            __import__(name)
        except ImportError:
            continue  # an optional library not installed: the child imports (or misses) it itself
        if name.split(".")[0] not in _PRELOADED:
            _PRELOADED.append(name.split(".")[0])
    requests = sys.stdin.fileno()
    replies = sys.stdout
    children: dict[int, tuple[int, str]] = {}  # pidfd -> (pid, request id)
    buffered = b""
    open_input = True
    while open_input or children:
        ready, _, _ = select.select([*([requests] if open_input else []), *children], [], [])
        for fd in ready:
            if fd == requests:
                chunk = os.read(requests, 65536)
                if not chunk:
                    open_input = False
                    continue
                buffered += chunk
                while b"\n" in buffered:
                    line, buffered = buffered.split(b"\n", 1)
                    request = json.loads(line)
                    replies.flush()
                    pid = os.fork()
                    if pid == 0:
                        for pidfd in children:
                            os.close(pidfd)
                        return request
                    children[os.pidfd_open(pid)] = (pid, request["id"])
                    replies.write(json.dumps({"id": request["id"], "pid": pid}) + "\n")
                    replies.flush()
            else:
                pid, rid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                replies.write(json.dumps({"id": rid, "pid": pid, "status": os.waitstatus_to_exitcode(status)}) + "\n")
                replies.flush()
    return None


def _become(request: dict[str, Any]) -> None:
    """In the child: take the request's files, directory, environment and argv, then run it
    as the interpreter would run that command line (uncaught exceptions and SystemExit end
    the process the usual way: traceback, exit status)."""
    import runpy
    import types

    fd = os.open(request.get("stdin") or os.devnull, os.O_RDONLY)
    os.dup2(fd, 0)
    os.close(fd)
    for target, path in ((1, request["stdout"]), (2, request["stderr"])):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    argv: list[str] = request["argv"]
    first = "" if argv[0] == "-c" else os.getcwd() if argv[0] == "-m" else str(Path(argv[0]).resolve().parent)
    sys.path[:] = [first, *_path_entries(request["env"].get("PYTHONPATH")), *_BASE_PATH]
    _check_preloaded_resolve_the_same(argv)
    if argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        main = types.ModuleType("__main__")
        sys.modules["__main__"] = main
        exec(compile(argv[1], "<string>", "exec"), main.__dict__)
    elif argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        runpy.run_path(argv[0], run_name="__main__")


def _check_preloaded_resolve_the_same(argv: list[str]) -> None:
    """A program whose path would import another copy of a preloaded package (another checkout
    on its $PYTHONPATH) must not get the server's copy: it becomes a real fresh interpreter
    (``exec``: same pid, files, directory and environment), as if the server were not there."""
    from importlib.machinery import PathFinder

    for name in _PRELOADED:
        spec = PathFinder.find_spec(name, sys.path)
        if spec is None or spec.origin != getattr(sys.modules.get(name), "__file__", None):
            os.execv(sys.executable, [sys.executable, *argv])


_PRELOADED: list[str] = []


# --------------------------------------------------------------------------- the test side


@dataclass
class Completed:
    """What ``subprocess.run(..., capture_output=True, text=True)`` gave the tests."""

    returncode: int
    stdout: str
    stderr: str


class ForkedProcess:
    """A program forked by a :class:`ForkServer`: the parts of ``subprocess.Popen`` tests use."""

    def __init__(self, server: ForkServer, rid: str, pid: int, out: Path, err: Path) -> None:
        self._server, self._rid, self.pid = server, rid, pid
        self.stdout_path, self.stderr_path = out, err
        self.returncode: int | None = None
        self.stdin: Any = None  # text pipes, for a process started by start_python_piped
        self.stdout: Any = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._server._status(self._rid, 0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            status = self._server._status(self._rid, timeout)
            if status is None:
                raise subprocess.TimeoutExpired(f"forked pid {self.pid}", timeout or 0)
            self.returncode = status
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)

    def output(self) -> tuple[str, str]:
        """(stdout, stderr) as written so far."""
        read = lambda p: p.read_text(encoding="utf-8", errors="replace") if p.exists() else ""  # noqa: E731
        return read(self.stdout_path), read(self.stderr_path)


class ForkServer:
    """One preloaded interpreter forking the programs given to :meth:`start`/:meth:`run`.

    ``env`` is the server's own environment (for the imports: ``PYTHONPATH``); each program
    gets the environment its call passes. Close it (or use it as a context manager) to stop
    it; programs still running are killed."""

    def __init__(self, preload: list[str], *, env: dict[str, str] | None = None, cwd: str | Path | None = None) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, str(HERE), *preload], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, cwd=cwd, text=True, bufsize=1,
        )
        self._lock = threading.Condition()
        self._pids: dict[str, int] = {}
        self._statuses: dict[str, int] = {}
        self._count = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            reply = json.loads(line)
            with self._lock:
                if "status" in reply:
                    self._statuses[reply["id"]] = reply["status"]
                else:
                    self._pids[reply["id"]] = reply["pid"]
                self._lock.notify_all()
        with self._lock:
            self._lock.notify_all()

    def _status(self, rid: str, timeout: float | None) -> int | None:
        with self._lock:
            self._lock.wait_for(lambda: rid in self._statuses or self._proc.poll() is not None, timeout)
            return self._statuses.get(rid)

    def start(
        self, argv: list[str], *, cwd: str | Path, env: dict[str, str], stdout: Path, stderr: Path,
        stdin: Path | None = None,
    ) -> ForkedProcess:
        """Fork ``python *argv`` (``argv`` is what follows the interpreter: a script and its
        arguments, ``["-c", code, ...]`` or ``["-m", module, ...]``), its output to files."""
        with self._lock:
            self._count += 1
            rid = str(self._count)
        request = {"id": rid, "argv": [str(a) for a in argv], "cwd": str(cwd), "env": env,
                   "stdout": str(stdout), "stderr": str(stderr), "stdin": str(stdin) if stdin else None}
        assert self._proc.stdin is not None
        with self._lock:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
            if not self._lock.wait_for(lambda: rid in self._pids or self._proc.poll() is not None, 30):
                raise TimeoutError("the fork server did not fork within 30 s")
            if rid not in self._pids:
                raise RuntimeError(f"the fork server exited with status {self._proc.returncode}")
            pid = self._pids[rid]
        return ForkedProcess(self, rid, pid, Path(stdout), Path(stderr))

    def run(self, argv: list[str], *, cwd: str | Path, env: dict[str, str], timeout: float) -> Completed:
        """Like ``subprocess.run(capture_output=True, text=True, timeout=...)`` (the output goes
        through two files of a temporary directory of its own, not ``cwd``)."""
        with tempfile.TemporaryDirectory(prefix="forked-") as files:
            out, err = Path(files) / "stdout", Path(files) / "stderr"
            proc = self.start(argv, cwd=cwd, env=env, stdout=out, stderr=err)
            try:
                returncode = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
                raise
            stdout, stderr = proc.output()
        return Completed(returncode, stdout, stderr)

    def close(self) -> None:
        """Stop the server (its running programs are killed first)."""
        with self._lock:
            running = [pid for rid, pid in self._pids.items() if rid not in self._statuses]
        for pid in running:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait(10)

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_python(
    argv: list[str], *, cwd: str | Path | None = None, env: dict[str, str] | None = None, timeout: float = 120,
) -> Completed:
    """``subprocess.run([sys.executable, *argv], capture_output=True, text=True, ...)``, forked
    from :func:`shared` (``env`` defaults to this process's environment, ``cwd`` to its own)."""
    return shared().run(argv, cwd=cwd or os.getcwd(), env=dict(os.environ) if env is None else env, timeout=timeout)


def start_python(
    argv: list[str], *, output: Path, cwd: str | Path | None = None, env: dict[str, str] | None = None,
) -> ForkedProcess:
    """``subprocess.Popen([sys.executable, *argv], ...)`` forked from :func:`shared`, its stdout and
    stderr written to ``output.with_suffix(".out")`` and ``.err`` (read them with ``output()``)."""
    return shared().start(argv, cwd=cwd or os.getcwd(), env=dict(os.environ) if env is None else env,
                          stdout=output.with_suffix(".out"), stderr=output.with_suffix(".err"))


def start_python_piped(
    argv: list[str], *, output: Path, cwd: str | Path | None = None, env: dict[str, str] | None = None,
    timeout: float = 30,
) -> ForkedProcess:
    """:func:`start_python` with ``stdin``/``stdout`` as text pipes (``.stdin.write``,
    ``.stdout.readline``: named pipes ``output.in``/``output.out``); stderr goes to ``output.err``.
    Reading ``.stdout`` never sees an end-of-file: read with a timeout."""
    to_child, from_child = output.with_suffix(".in"), output.with_suffix(".out")
    os.mkfifo(to_child)
    os.mkfifo(from_child)
    proc = shared().start(argv, cwd=cwd or os.getcwd(), env=dict(os.environ) if env is None else env,
                          stdin=to_child, stdout=from_child, stderr=output.with_suffix(".err"))
    deadline = time.monotonic() + timeout
    while True:  # the child opens its stdin first; opening a pipe with no reader yet fails (ENXIO)
        try:
            fd = os.open(to_child, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"forked pid {proc.pid} did not open its stdin: {proc.output()[1][-2000:]}") from None
            time.sleep(0.002)
    os.set_blocking(fd, True)
    proc.stdin = open(fd, "w", encoding="utf-8")  # noqa: SIM115 - the process object owns it
    # Read and write: a read then waits for the child's output, never an end-of-file before the
    # child has opened its end (it does right after its stdin). The flip side: no end-of-file
    # when it exits either, so readers need a timeout (and poll()).
    proc.stdout = open(os.open(from_child, os.O_RDWR), encoding="utf-8")  # noqa: SIM115
    return proc


_SHARED: dict[str, ForkServer] = {}

# What most test programs import: crewgraph's API, its testing helpers and the engine a first
# crew or flow kickoff loads (compiler, scheduler, nodes, runner, checkpoints: ~190 crewgraph
# modules, 0.8 s of CPU). No third-party library beyond pydantic: nothing a test checks the
# absence of (networkx, the openai SDK, the CLI's and the UI's libraries) is preloaded.
SHARED_PRELOAD = [
    "crewgraph", "crewgraph.testing", "crewgraph.crew", "crewgraph.compiler.crew_compiler",
    "crewgraph.runtime.scheduler", "crewgraph.runtime.cassette", "crewgraph.nodes.agent_step",
    "crewgraph.runner.crew_run", "crewgraph.runner.human_pause", "crewgraph.runner.task_callbacks",
    "crewgraph.runner.boundary_hooks", "crewgraph.observability.run_tracing", "crewgraph.tools.delegation",
    "crewgraph.flow", "crewgraph.checkpoint",
]


def shared() -> ForkServer:
    """This test process's fork server preloading :data:`SHARED_PRELOAD` (started at first use,
    stopped at exit; not a fixture, so using it puts no test in an xdist group). Its programs
    need ``$PYTHONPATH`` to name this checkout, as the tests' subprocesses always did."""
    if "server" not in _SHARED:
        import atexit

        root = str(HERE.parents[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *_path_entries(os.environ.get("PYTHONPATH"))])}
        _SHARED["server"] = server = ForkServer(SHARED_PRELOAD, env=env, cwd=root)
        atexit.register(server.close)
    return _SHARED["server"]


if __name__ == "__main__":
    _job = _serve()
    if _job is not None:
        del _serve
        _become(_job)
