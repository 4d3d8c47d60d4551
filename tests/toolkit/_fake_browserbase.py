"""A local stand-in of Browserbase's session API whose sessions are real local Chromiums.

It answers the calls Browserbase documents and Stagehand's SDK makes for
``browserbase.launch``: ``POST /v1/extensions`` (a multipart zip upload; the
extension is unpacked), ``POST /v1/sessions`` (starts a headless Chromium, loads
the uploaded extension into it over CDP as Browserbase's session browsers have
it, and answers a Session with its ``connectUrl``), ``POST /v1/sessions/{id}``
with ``status: REQUEST_RELEASE`` (ends that Chromium) and
``DELETE /v1/extensions/{id}``. Every call must carry the ``X-BB-API-Key``.
"""

from __future__ import annotations

import io
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from crewgraph.testing import FakeHTTPService
from crewgraph.testing.fake_http import FakeRequestRecord

API_KEY = "bb-test-key"
_NOW = "2026-01-01T00:00:00Z"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class FakeBrowserbase:
    """Browserbase's REST API on 127.0.0.1; each session a Chromium process of its own."""

    def __init__(self) -> None:
        self.service = FakeHTTPService({
            "POST /v1/extensions": self._upload,
            "DELETE /v1/extensions/{id}": self._delete_extension,
            "POST /v1/sessions": self._create,
            "POST /v1/sessions/{id}": self._update,
        })
        self._dir = Path(tempfile.mkdtemp(prefix="fake-browserbase-"))
        self.extensions: dict[str, Path] = {}
        self.sessions: dict[str, subprocess.Popen[bytes]] = {}

    def __enter__(self) -> FakeBrowserbase:
        self.service.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.sessions.values():
            _end(proc)
        self.service.stop()
        shutil.rmtree(self._dir, ignore_errors=True)

    @property
    def url(self) -> str:
        return self.service.url

    def _authorized(self, req: FakeRequestRecord) -> bool:
        return req.headers.get("x-bb-api-key") == API_KEY

    def _upload(self, req: FakeRequestRecord) -> Any:
        if not self._authorized(req):
            return 401, {"error": "Unauthorized"}
        boundary = req.headers["content-type"].split("boundary=", 1)[1].strip('"').encode()
        part = next(p for p in req.body.split(b"--" + boundary) if b'name="file"' in p)
        archive = part.split(b"\r\n\r\n", 1)[1].rsplit(b"\r\n", 1)[0]
        ident = f"ext{len(self.extensions) + 1}"
        target = self._dir / ident
        zipfile.ZipFile(io.BytesIO(archive)).extractall(target)
        self.extensions[ident] = target
        return {"id": ident, "fileName": "stagehand-extension.zip", "projectId": "proj", "createdAt": _NOW,
                "updatedAt": _NOW}

    def _delete_extension(self, req: FakeRequestRecord) -> Any:
        if not self._authorized(req) or self.extensions.pop(req.params["id"], None) is None:
            return 404, {"error": "Not found"}
        return 204, b""

    def _create(self, req: FakeRequestRecord) -> Any:
        if not self._authorized(req):
            return 401, {"error": "Unauthorized"}
        extension = self.extensions.get((req.json or {}).get("extensionId", ""))
        if extension is None:
            return 400, {"error": "unknown extensionId"}
        port = _free_port()
        proc = subprocess.Popen(  # what a Browserbase session is: a Chromium reachable over CDP
            [shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--no-first-run",
             f"--remote-debugging-port={port}", f"--user-data-dir={self._dir / f'profile{port}'}",
             "--enable-unsafe-extension-debugging", "--remote-allow-origins=*", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ident = f"sess{len(self.sessions) + 1}"
        self.sessions[ident] = proc
        connect_url = _load_extension(port, extension)
        return 201, {**_session(ident, "RUNNING"), "connectUrl": connect_url}

    def _update(self, req: FakeRequestRecord) -> Any:
        proc = self.sessions.get(req.params["id"])
        if not self._authorized(req) or proc is None:
            return 404, {"error": "Not found"}
        if (req.json or {}).get("status") == "REQUEST_RELEASE":
            _end(proc)
        return _session(req.params["id"], "COMPLETED")


def _session(ident: str, status: str) -> dict[str, Any]:
    return {"id": ident, "createdAt": _NOW, "updatedAt": _NOW, "startedAt": _NOW, "expiresAt": _NOW,
            "keepAlive": False, "projectId": "proj", "proxyBytes": 0, "region": "us-west-2", "status": status}


def _load_extension(port: int, extension: Path) -> str:
    """Wait for Chromium's CDP endpoint, load the extension (``Extensions.loadUnpacked``), return its URL."""
    from websockets.sync.client import connect

    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1) as reply:
                url = str(json.load(reply)["webSocketDebuggerUrl"])
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    with connect(url, max_size=None) as cdp:
        cdp.send(json.dumps({"id": 1, "method": "Extensions.loadUnpacked", "params": {"path": str(extension)}}))
        answer = json.loads(cdp.recv(timeout=30))
    assert "result" in answer, answer
    return url


def _end(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
