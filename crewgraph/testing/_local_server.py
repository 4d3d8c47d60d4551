"""A threaded HTTP server on 127.0.0.1 for the test doubles (the OpenAI-compatible server,
the fakes of hosted APIs): a free port, a daemon thread, a fast and bounded stop."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["LocalServer", "QuietHTTPServer"]


class QuietHTTPServer(ThreadingHTTPServer):
    """Clients that hang up early (timeouts, dropped connections) are normal here, not errors."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class LocalServer:
    """Serves ``handler`` on a free loopback port in a daemon thread until :meth:`stop`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self, handler: type[BaseHTTPRequestHandler]) -> None:
        """Bind and serve (idempotent). A short poll interval keeps :meth:`stop` fast."""
        if self._httpd is not None:
            return
        self._httpd = QuietHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=self.name, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and release the port (waits at most 5 s for the thread)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(f"{self.name} is not started; use it as a context manager")
        return int(self._httpd.server_address[1])
