"""``crewgraph._internal.threads.in_thread``: what sync tools keep from ``asyncio.to_thread``."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Iterator

import pytest

from crewgraph._internal import threads
from crewgraph._internal.sync import run_sync

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


@pytest.fixture
def one_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(threads, "_LIMIT", 1)
    yield


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("crewgraph-tool")]


def test_context_variables_go_along_and_changes_stay_in_the_thread() -> None:
    def read_and_change() -> tuple[str, str]:
        seen = VAR.get()
        VAR.set("changed in the thread")
        return seen, threading.current_thread().name

    async def main() -> tuple[tuple[str, str], str]:
        VAR.set("the caller's")
        got = await threads.in_thread(read_and_change)
        return got, VAR.get()

    (seen, name), after = asyncio.run(main())
    assert seen == "the caller's"
    assert after == "the caller's"
    assert name.startswith("crewgraph-tool")


def test_results_errors_and_stop_iteration_reach_the_caller() -> None:
    def stop() -> None:
        raise StopIteration

    async def main() -> None:
        assert await threads.in_thread(divmod, 7, 2) == (3, 1)
        with pytest.raises(KeyError, match="missing"):
            await threads.in_thread({}.__getitem__, "missing")
        with pytest.raises(RuntimeError, match="StopIteration"):  # a bare one would leave the future unresolved
            await threads.in_thread(stop)

    asyncio.run(main())


def test_a_worker_is_reused_and_calls_overlap_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "_LIMIT", 2)
    lock = threading.Lock()
    running = peak = calls = 0
    gate = threading.Barrier(2, timeout=5)

    def busy() -> str:
        nonlocal running, peak, calls
        with lock:
            running += 1
            calls += 1
            peak, number = max(peak, running), calls
        if number <= 2:
            gate.wait()  # the first two calls meet: they do run at the same time
        time.sleep(0.02)
        with lock:
            running -= 1
        return threading.current_thread().name

    async def main() -> tuple[list[str], str, str]:
        names = await asyncio.gather(*(threads.in_thread(busy) for _ in range(3)))
        first = await threads.in_thread(threading.current_thread)
        second = await threads.in_thread(threading.current_thread)
        return list(names), first.name, second.name

    names, first, second = asyncio.run(main())
    assert peak == 2  # two workers at most, the third call waited for one
    assert len(set(names)) == 2
    assert {first, second} <= set(names)  # idle workers take the next calls (either of the two may)


def test_a_call_cancelled_before_a_worker_took_it_does_not_run(one_worker: None) -> None:
    release = threading.Event()
    ran: list[str] = []

    async def main() -> None:
        first = asyncio.ensure_future(threads.in_thread(release.wait, 5))
        await asyncio.sleep(0.01)
        queued = asyncio.ensure_future(threads.in_thread(ran.append, "queued"))
        await asyncio.sleep(0.01)
        queued.cancel()
        release.set()
        assert await first is True
        await threads.in_thread(ran.append, "after")  # the one worker went past the cancelled call

    asyncio.run(main())
    assert ran == ["after"]


def test_a_timed_out_call_finishes_in_its_thread_after_the_loop_is_gone() -> None:
    release, done = threading.Event(), threading.Event()

    def hung() -> str:
        release.wait(5)
        done.set()
        return "late"

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(threads.in_thread(hung), 0.05)

    errors: list[BaseException | None] = []

    def record(args: threading.ExceptHookArgs) -> None:
        errors.append(args.exc_value)

    previous = threading.excepthook
    threading.excepthook = record
    try:
        started = time.monotonic()
        run_sync(main())  # a run's own loop: its end does not wait for the hung call
        assert time.monotonic() - started < 2
        release.set()
        assert done.wait(5)
        time.sleep(0.05)  # the worker hands "late" to a closed loop: dropped, not raised
    finally:
        threading.excepthook = previous
    assert errors == []


def test_the_end_of_a_run_lets_its_idle_workers_go() -> None:
    async def main() -> str:
        return (await threads.in_thread(threading.current_thread)).name

    name = run_sync(main())
    deadline = time.monotonic() + 5
    while any(t.name == name for t in _workers()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name == name and t.is_alive() for t in _workers())
