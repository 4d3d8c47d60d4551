"""Fixtures for the LLM tests: a scripted OpenAI-compatible server and fast-retry clients."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from crewgraph.llm import LLM
from crewgraph.testing import OpenAICompatServer


@pytest.fixture
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer() as srv:
        yield srv


@pytest.fixture
def make_llm(server: OpenAICompatServer) -> Callable[..., LLM]:
    """An LLM pointed at ``server`` with millisecond backoff so retry tests stay fast."""

    def _make(**kwargs: Any) -> LLM:
        options: dict[str, Any] = {
            "model": "test-model",
            "base_url": server.base_url,
            "api_key": "sk-test",
            "retry_initial_delay": 0.001,
            "retry_max_delay": 0.005,
            "retry_after_max": 0.05,
            "timeout": 10.0,
        }
        options.update(kwargs)
        return LLM(**options)

    return _make
