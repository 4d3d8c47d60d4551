"""network_blocked: non-loopback connections fail at once, loopback works, LLM does not retry."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from crewgraph.errors import LLMError
from crewgraph.llm import LLM
from crewgraph.testing import NetworkBlockedError, OpenAICompatServer, network_blocked
from crewgraph.testing.network import is_network_blocked

REMOTE = ("10.255.255.1", 9)  # never actually contacted: the guard refuses before connecting


def _connect(address: tuple[str, int], family: int = socket.AF_INET) -> None:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.connect(address)
    finally:
        sock.close()


@pytest.mark.allow_network  # checks the guard is off again afterwards
def test_blocks_remote_ipv4_and_ipv6_and_hostnames() -> None:
    with network_blocked():
        with pytest.raises(NetworkBlockedError, match=r"10\.255\.255\.1:9"):
            _connect(REMOTE)
        with pytest.raises(NetworkBlockedError):
            _connect(("2001:db8::1", 443, 0, 0), socket.AF_INET6)
        with pytest.raises(NetworkBlockedError):
            _connect(("example.com", 443))
        sock = socket.socket()
        try:
            with pytest.raises(NetworkBlockedError):
                sock.connect_ex(REMOTE)
        finally:
            sock.close()
    assert not is_network_blocked()


def test_loopback_is_allowed() -> None:
    with OpenAICompatServer(["local ok"]) as server, network_blocked():
        assert LLM(model="m", base_url=server.base_url).call("hi").content == "local ok"
        _connect(("localhost", server.port))


@pytest.mark.allow_network  # checks the guard is off again afterwards
def test_nesting() -> None:
    with network_blocked():
        with network_blocked():
            assert is_network_blocked()
        assert is_network_blocked()
    assert not is_network_blocked()


def test_llm_fails_fast_with_the_reason() -> None:
    events: list[Any] = []
    llm = LLM(model="m", base_url="http://10.255.255.1:9/v1", api_key="x", max_retries=3,
              retry_initial_delay=0.001)
    with network_blocked(), pytest.raises(LLMError, match="network access blocked") as info:
        llm.call("hi", emit=events.append)
    assert events == []  # a refused permission is not retried
    assert "gave up" not in str(info.value)


def test_name_lookups_are_refused_but_loopback_names_resolve() -> None:
    with network_blocked():
        with pytest.raises(NetworkBlockedError, match=r"name lookup of 'example\.com'"):
            socket.getaddrinfo("example.com", 443)
        assert socket.getaddrinfo("localhost", 80)
        assert socket.getaddrinfo("10.1.2.3", 80)  # literal addresses are checked at connect
