"""The MCP test servers the tests start: the stdio script, and one subprocess serving both
streamable HTTP and SSE on 127.0.0.1 (two ports)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SERVER = Path(__file__).with_name("mcp_test_server.py")


def started(path: Path) -> list[int]:
    """Pids of the server processes started so far (one line each)."""
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class HTTPServer:
    """One transport of :class:`WebServers`: its URL."""

    mode: str
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/" + ("mcp" if self.mode == "http" else "sse")


class WebServers:
    """The test server as one subprocess on 127.0.0.1: streamable HTTP (``.http``) and SSE
    (``.sse``), each a uvicorn server of its own on its own port. The HTTP tests share it: a
    server process costs ~2 s of CPU importing the mcp SDK, and no HTTP test needs a fresh one."""

    def __init__(self) -> None:
        self.http, self.sse = HTTPServer("http", _free_port()), HTTPServer("sse", _free_port())
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "web", str(self.http.port), str(self.sse.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for port in (self.http.port, self.sse.port):
            self._wait_listening(port)

    def _wait_listening(self, port: int) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                assert self.proc.stderr is not None
                raise RuntimeError(f"MCP web server exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"MCP web server did not listen on {port}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()
