"""Keep tests off the network: only loopback (and Unix sockets) may be reached.

A test that accidentally talks to a hosted LLM is slow, flaky and costs money;
worse, it passes on a laptop with a key and fails in CI. ``network_blocked()``
patches ``socket.socket.connect``/``connect_ex`` so any connection to a
non-loopback address raises :class:`NetworkBlockedError` naming the address.
Local servers (``OpenAICompatServer``, a Qdrant container on localhost) still
work. The pytest plugin exposes it as the ``block_network`` fixture/marker.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NetworkBlockedError", "is_network_blocked", "network_blocked"]

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
_state_lock = threading.Lock()
_depth = 0
_originals: dict[str, Any] = {}


class NetworkBlockedError(PermissionError):
    """A test tried to open a connection to a non-loopback address.

    A ``PermissionError`` so that clients treat it as permanent (crewgraph's
    LLM does not retry it) and the message reaches the test output.
    """


def _is_loopback(host: str) -> bool:
    host = host.strip("[]").split("%", 1)[0]
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return  # Unix sockets, netlink...: local by nature
    host = address[0] if isinstance(address, tuple) else str(address)
    if not _is_loopback(str(host)):
        port = address[1] if isinstance(address, tuple) and len(address) > 1 else "?"
        raise NetworkBlockedError(
            f"network access blocked by crewgraph.testing: connection to {host}:{port} refused "
            "(only loopback is allowed in tests; use FakeLLM or OpenAICompatServer instead "
            "of a hosted model, or mark the test with @pytest.mark.allow_network)"
        )


def _install() -> None:
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    _originals["connect"] = original_connect
    _originals["connect_ex"] = original_connect_ex

    def connect(self: socket.socket, address: Any) -> None:
        _check(self, address)
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(self, address)
        return original_connect_ex(self, address)

    setattr(socket.socket, "connect", connect)  # noqa: B010 - patching a C-typed method
    setattr(socket.socket, "connect_ex", connect_ex)  # noqa: B010

    original_getaddrinfo = socket.getaddrinfo
    _originals["getaddrinfo"] = original_getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        # Refuse name lookups too: where DNS is down, a client would otherwise retry
        # the lookup error for seconds before the connect guard ever runs.
        if isinstance(host, bytes):
            host = host.decode(errors="replace")
        if host is not None and not _is_loopback(str(host)) and not _is_ip(str(host)):
            raise NetworkBlockedError(
                f"network access blocked by crewgraph.testing: name lookup of {host!r} refused "
                "(only loopback is allowed in tests; mark the test with @pytest.mark.allow_network)"
            )
        return original_getaddrinfo(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo


def _uninstall() -> None:
    socket.getaddrinfo = _originals.pop("getaddrinfo")
    setattr(socket.socket, "connect", _originals.pop("connect"))  # noqa: B010
    setattr(socket.socket, "connect_ex", _originals.pop("connect_ex"))  # noqa: B010


@contextmanager
def network_blocked() -> Iterator[None]:
    """Within the block, connections to anything but loopback fail (nestable, process-wide)."""
    global _depth
    with _state_lock:
        if _depth == 0:
            _install()
        _depth += 1
    try:
        yield
    finally:
        with _state_lock:
            _depth -= 1
            if _depth == 0:
                _uninstall()


def is_network_blocked() -> bool:
    """True while some ``network_blocked()`` block is active."""
    with _state_lock:
        return _depth > 0
