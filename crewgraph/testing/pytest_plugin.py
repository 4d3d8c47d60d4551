"""crewgraph's pytest plugin (registered through the ``pytest11`` entry point).

Fixtures:

* ``fake_llm`` -- a factory: ``fake_llm(["hi", FakeToolCall("search", {...})])``
  returns a :class:`~crewgraph.testing.FakeLLM` (same arguments).
* ``openai_server`` -- a started :class:`~crewgraph.testing.OpenAICompatServer`;
  script it with ``openai_server.add(...)``; it stops after the test.
* ``block_network`` -- connections to non-loopback addresses fail during the test.

Markers: ``@pytest.mark.block_network`` does the same as the fixture;
``@pytest.mark.allow_network`` exempts a test from a suite-wide block.

Blocking is opt-in. To block a whole suite set ``crewgraph_block_network = true``
in the pytest ini options, or the environment variable
``CREWGRAPH_BLOCK_NETWORK=1``.

This module is loaded in every pytest run of a project that installs
crewgraph, so it imports nothing heavy at module level.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from crewgraph.testing.fake_llm import FakeLLM
    from crewgraph.testing.openai_server import OpenAICompatServer

_INI = "crewgraph_block_network"
_ENV = "CREWGRAPH_BLOCK_NETWORK"
_TRUE = {"1", "true", "yes", "on"}
_blocker_key = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        _INI,
        "Block connections to non-loopback addresses in every test (crewgraph).",
        type="bool",
        default=False,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "block_network: fail any connection to a non-loopback address (crewgraph)"
    )
    config.addinivalue_line(
        "markers", "allow_network: exempt this test from crewgraph's suite-wide network block"
    )


def _suite_wide(config: pytest.Config) -> bool:
    if os.environ.get(_ENV, "").strip().lower() in _TRUE:
        return True
    try:
        return bool(config.getini(_INI))
    except ValueError:
        return False


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    wanted = item.get_closest_marker("block_network") is not None or _suite_wide(item.config)
    if not wanted or item.get_closest_marker("allow_network") is not None:
        return
    from crewgraph.testing.network import network_blocked

    blocker = network_blocked()
    blocker.__enter__()
    item.stash[_blocker_key] = blocker


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    blocker = item.stash.get(_blocker_key, None)
    if blocker is not None:
        del item.stash[_blocker_key]
        blocker.__exit__(None, None, None)


@pytest.fixture
def block_network() -> Iterator[None]:
    """Fail any connection to a non-loopback address for the duration of the test."""
    from crewgraph.testing.network import network_blocked

    with network_blocked():
        yield


@pytest.fixture
def fake_llm() -> Callable[..., FakeLLM]:
    """Factory for scripted models: ``fake_llm(["answer"], model="fake")``."""
    from crewgraph.testing.fake_llm import FakeLLM

    def _make(responses: Any = None, **kwargs: Any) -> FakeLLM:
        return FakeLLM(responses, **kwargs)

    return _make


@pytest.fixture
def openai_server() -> Iterator[OpenAICompatServer]:
    """A running OpenAI-compatible test server; ``.base_url`` points an ``LLM`` at it."""
    from crewgraph.testing.openai_server import OpenAICompatServer

    with OpenAICompatServer() as server:
        yield server
