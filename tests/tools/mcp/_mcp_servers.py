"""The MCP test servers the tests start: the stdio script and HTTP/SSE subprocesses on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

SERVER = Path(__file__).with_name("mcp_test_server.py")


def started(path: Path) -> list[int]:
    """Pids of the server processes started so far (one line each)."""
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HTTPServer:
    """The test server as a subprocess on 127.0.0.1 (streamable HTTP or SSE)."""

    def __init__(self, mode: str):
        self.mode = mode
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), mode, str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"MCP {mode} server exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"MCP {mode} server did not listen on {self.port}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/" + ("mcp" if self.mode == "http" else "sse")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
