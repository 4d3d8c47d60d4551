"""Misbehaving servers, for :class:`~crewgraph.testing.OpenAICompatServer`.

Real servers and the proxies in front of them fail in ways a clean HTTP error
does not cover. These reproduce them offline, so the client's handling of
each is tested on every run:

- :class:`Misbehaviour` (built by ``ServerReply.drip``, ``garbage``, ``html``,
  ``null_message``, ``empty_choices``, ``bad_usage``, ``cut_off``): a 200
  reply whose body is dripped a few bytes at a time, is not JSON, is an HTML
  error page, has ``"message": null`` or no ``choices``, carries usage of the
  wrong type, or stops half-way when the server hangs up.
- :class:`Faults`: a server that fails a seeded share of requests with
  429/500/503 (``Retry-After`` on some), without consuming the script, so a
  run's outputs equal those of a healthy server.

Standard library only, like the server.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Faults", "Misbehaviour", "RawBody"]


@dataclass
class RawBody:
    """A 200 reply sent byte for byte: ``body`` with ``content_type``, ``drip_delay`` seconds
    between pieces of ``drip_bytes``, and the connection closed after ``cut_after`` bytes."""

    body: bytes
    content_type: str = "application/json"
    drip_delay: float = 0.0
    drip_bytes: int = 1
    cut_after: int | None = None

    def send(self, handler: Any) -> None:
        """Write the reply on a ``BaseHTTPRequestHandler`` (the full length is announced)."""
        handler.send_response(200)
        handler.send_header("Content-Type", self.content_type)
        handler.send_header("Content-Length", str(len(self.body)))
        handler.end_headers()
        data = self.body if self.cut_after is None else self.body[: self.cut_after]
        if self.drip_delay <= 0:
            handler.wfile.write(data)
        else:
            for start in range(0, len(data), self.drip_bytes):
                handler.wfile.write(data[start : start + self.drip_bytes])
                handler.wfile.flush()
                time.sleep(self.drip_delay)
        handler.wfile.flush()
        if self.cut_after is not None:
            handler.close_connection = True


@dataclass
class Misbehaviour:
    """How a scripted reply misbehaves; :meth:`render` turns the completion it would have sent
    into the :class:`RawBody` actually sent."""

    raw: bytes | None = None
    """Send these bytes instead of the completion."""
    content_type: str = "application/json"
    mangle: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Change the completion before it is sent."""
    drip_delay: float = 0.0
    drip_bytes: int = 1
    cut_after: int | None = None

    def render(self, completion: dict[str, Any]) -> RawBody:
        if self.raw is not None:
            body = self.raw
        else:
            data = self.mangle(json.loads(json.dumps(completion))) if self.mangle else completion
            body = json.dumps(data).encode()
        return RawBody(body, self.content_type, self.drip_delay, self.drip_bytes, self.cut_after)


def null_message(completion: dict[str, Any]) -> dict[str, Any]:
    completion["choices"][0]["message"] = None
    return completion


def empty_choices(completion: dict[str, Any]) -> dict[str, Any]:
    completion["choices"] = []
    return completion


def usage_as(usage: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def mangle(completion: dict[str, Any]) -> dict[str, Any]:
        completion["usage"] = usage
        return completion

    return mangle


@dataclass
class Faults:
    """Fail ``rate`` of chat requests (seeded) with one of ``statuses``, before the script is read.

    About half of the 429 and 503 answers carry ``Retry-After: retry_after``
    (a provider does not always send one). ``injected`` counts the failures
    sent, ``passed`` the requests let through.
    """

    rate: float
    seed: int = 0
    statuses: tuple[int, ...] = (429, 500, 503)
    retry_after: float = 0.0
    injected: int = 0
    passed: int = 0
    _rng: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"Faults.rate must be between 0 and 1, got {self.rate}")
        self._rng = random.Random(self.seed)

    def draw(self) -> tuple[int, dict[str, str]] | None:
        """The status and headers of an injected failure, or None to let the request through."""
        with self._lock:
            if self._rng.random() >= self.rate:
                self.passed += 1
                return None
            self.injected += 1
            status = self._rng.choice(self.statuses)
            with_header = self._rng.random() < 0.5
        headers = {"Retry-After": f"{self.retry_after:g}"} if with_header and status in (429, 503) else {}
        return status, headers
