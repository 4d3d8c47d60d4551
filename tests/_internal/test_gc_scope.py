"""Full garbage collections are spaced out during a run, and the thresholds come back after.

Counts and settings, not timings: inside a kickoff (seen from a task callback) and a flow
run the collector's third threshold is ``FULL_EVERY``; afterwards it is what it was, also
when runs nest or overlap, when the run fails, and when the user changed it meanwhile.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph._internal import gc_scope
from crewgraph._internal.gc_scope import FULL_EVERY, run_collector
from crewgraph.flow import Flow, listen, start
from crewgraph.testing import FakeLLM


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[tuple[int, int, int]]:
    """CPython's defaults for the test, the process's own put back after it."""
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*saved)


def _crew(seen: list[tuple[int, int, int]], fail: bool = False) -> Crew:
    def callback(_output: object) -> None:
        seen.append(gc.get_threshold())
        if fail:
            raise RuntimeError("callback failed")

    a = Agent(role="R", goal="g", backstory="b", llm=FakeLLM(default="done"))
    return Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a, callback=callback)])


def test_a_kickoff_spaces_out_full_collections_and_restores_the_thresholds() -> None:
    seen: list[tuple[int, int, int]] = []
    _crew(seen).kickoff()
    assert seen == [(700, 10, FULL_EVERY)]
    assert gc.get_threshold() == (700, 10, 10)
    assert not gc_scope.active()


def test_a_failed_run_restores_the_thresholds() -> None:
    seen: list[tuple[int, int, int]] = []
    with pytest.raises(Exception, match="callback failed"):
        _crew(seen, fail=True).kickoff()
    assert seen == [(700, 10, FULL_EVERY)]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_flow_run_is_a_scope_too() -> None:
    seen: list[tuple[int, int, int]] = []

    class Two(Flow):  # type: ignore[type-arg]
        @start()
        def first(self) -> int:
            seen.append(gc.get_threshold())
            return 1

        @listen(first)
        def second(self, value: int) -> int:
            return value + 1

    assert Two().kickoff() == 2
    assert seen == [(700, 10, FULL_EVERY)]
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_and_concurrent_runs_share_one_scope() -> None:
    seen: list[tuple[int, int, int]] = []
    with run_collector():
        _crew(seen).kickoff()  # nested: still deferred after it ends
        assert gc.get_threshold() == (700, 10, FULL_EVERY)

        async def both() -> None:
            await asyncio.gather(_crew(seen).kickoff_async(), _crew(seen).kickoff_async())

        asyncio.run(both())
        assert gc.get_threshold() == (700, 10, FULL_EVERY)
    assert gc.get_threshold() == (700, 10, 10)

    threads = [threading.Thread(target=lambda: _crew(seen).kickoff()) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(seen) == 6 and set(seen) == {(700, 10, FULL_EVERY)}
    assert gc.get_threshold() == (700, 10, 10)


def test_thresholds_changed_during_a_run_stand() -> None:
    with run_collector():
        gc.set_threshold(5000, 20, 30)
    assert gc.get_threshold() == (5000, 20, 30)


def test_a_disabled_or_already_patient_collector_is_left_alone() -> None:
    gc.set_threshold(0, 10, 10)  # threshold 0 disables automatic collection
    with run_collector():
        assert gc.get_threshold() == (0, 10, 10)
    gc.set_threshold(700, 10, 5 * FULL_EVERY)
    with run_collector():
        assert gc.get_threshold() == (700, 10, 5 * FULL_EVERY)
    assert gc.get_threshold() == (700, 10, 5 * FULL_EVERY)
