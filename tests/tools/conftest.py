"""Fixtures for the tools tests (seed snippets): instant sleeps, a clean event bus, skips."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest


def _need(module: str, *names: str) -> ModuleType:
    """The module, or skip (visibly) when it, or one of ``names`` in it, has not landed yet."""
    try:
        found = importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on what has landed
        pytest.skip(f"{module} is not importable yet ({exc}); agent-level seed snippet skipped")
    missing = [n for n in names if not hasattr(found, n)]
    if missing:  # pragma: no cover - depends on what has landed
        pytest.skip(f"{module} has no {', '.join(missing)} yet; agent-level seed snippet skipped")
    return found


@pytest.fixture
def need() -> Callable[..., ModuleType]:
    """``need("crewgraph.spec")``: import a module or skip the test saying it has not landed."""
    return _need


@pytest.fixture
def fast_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The async snippets ``await asyncio.sleep(1)``; keep them as written but instant."""
    real_sleep = asyncio.sleep

    async def instant(delay: float, result: Any = None) -> Any:
        return await real_sleep(0, result)

    monkeypatch.setattr(asyncio, "sleep", instant)


@pytest.fixture
def fake_llm() -> Any:
    """The FakeLLM class (skips when crewgraph.testing has not landed)."""
    return _need("crewgraph.testing", "FakeLLM").FakeLLM


@pytest.fixture
def clean_bus() -> Iterator[None]:
    """Handlers registered in the test are dropped afterwards."""
    from crewgraph.events.event_bus import crewgraph_event_bus

    with crewgraph_event_bus.scoped_handlers():
        yield
