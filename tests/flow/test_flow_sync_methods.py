"""Sync (``def``) flow methods run on the loop's long-lived workers (``_internal.threads``):
what they keep from ``asyncio.to_thread``. Waits are events and barriers, never clocks."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import traceback
from collections.abc import Iterator

import pytest

from crewgraph._internal import execution_vars, threads
from crewgraph.flow import Flow, listen, start

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


class MethodFailed(Exception):
    pass


@pytest.fixture
def one_worker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(threads, "_LIMIT", 1)
    yield


def test_a_sync_method_sees_the_callers_context_and_its_changes_stay_in_the_method() -> None:
    seen: dict[str, object] = {}

    class F(Flow):
        @start()
        def first(self) -> str:
            seen["var"] = VAR.get()
            seen["method"] = execution_vars.current_flow_method_name.get()
            seen["thread"] = threading.current_thread()
            VAR.set("changed inside first")
            return "x"

        @listen(first)
        def second(self, _: str) -> str:
            return VAR.get()

    async def main() -> tuple[str, str]:
        VAR.set("the caller's")
        out = await F().kickoff_async()
        return out, VAR.get()

    out, after = asyncio.run(main())
    assert seen["var"] == "the caller's"
    assert seen["method"] == "first"
    assert seen["thread"] is not threading.main_thread()
    assert out == "the caller's"  # the next method got a fresh copy of the caller's context
    assert after == "the caller's"


def test_a_sync_method_may_run_its_own_event_loop_and_kick_off_a_nested_flow() -> None:
    class Inner(Flow):
        @start()
        def go(self) -> int:
            return 20

    class Outer(Flow):
        @start()
        def own_loop(self) -> int:
            async def twice(n: int) -> int:
                await asyncio.sleep(0)
                return 2 * n

            return asyncio.run(twice(10))

        @listen(own_loop)
        def nested(self, n: int) -> int:
            return n + Inner().kickoff()  # no loop runs in this thread: a run of its own

    assert Outer().kickoff() == 40
    assert asyncio.run(Outer().kickoff_async()) == 40


def test_a_sync_methods_exception_keeps_its_type_message_and_frames() -> None:
    class F(Flow):
        @start()
        def explode(self) -> None:
            raise MethodFailed("boom in explode")

    with pytest.raises(MethodFailed, match="boom in explode") as info:
        F().kickoff()
    frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert frames[-1] == "explode"


def test_a_sync_method_raising_stop_iteration_fails_the_run_instead_of_hanging_it() -> None:
    class F(Flow):
        @start()
        def stop(self) -> None:
            raise StopIteration  # an asyncio future refuses it: to_thread left the run waiting forever

    with pytest.raises(RuntimeError, match=r"F\.stop' raised StopIteration"):
        F().kickoff()


def test_state_written_by_a_sync_method_is_seen_by_the_next_and_by_the_caller() -> None:
    class F(Flow):
        @start()
        def write(self) -> None:
            self.state["n"] = 1

        @listen(write)
        def read(self) -> int:
            self.state["n"] += 1
            return int(self.state["n"])

    flow = F()
    assert flow.kickoff() == 2
    assert flow.state["n"] == 2


def test_a_cancelled_run_does_not_start_its_queued_sync_methods(one_worker: None) -> None:
    entered, release = threading.Event(), threading.Event()
    ran: list[str] = []

    class F(Flow):
        @start()
        def begin(self) -> str:
            return "go"

        def _hold(self, name: str) -> None:
            entered.set()
            release.wait(10)
            ran.append(name)

        @listen(begin)
        def one(self, _: str) -> None:
            self._hold("one")

        @listen(begin)
        def two(self, _: str) -> None:
            self._hold("two")

        @listen(begin)
        def three(self, _: str) -> None:
            self._hold("three")

    async def main() -> None:
        run = asyncio.ensure_future(F().kickoff_async())
        while not entered.is_set():  # the one worker holds the listener it took first
            await asyncio.sleep(0.005)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        release.set()
        await threads.in_thread(ran.append, "after")  # the worker went past the cancelled calls

    asyncio.run(main())
    # The listener the worker took ran to its end; those still queued at the cancel never started.
    assert ran[-1] == "after"
    assert len(ran) == 2 and ran[0] in ("one", "two", "three")


def test_a_cancelled_run_does_not_wait_for_its_running_sync_method() -> None:
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()

    class F(Flow):
        @start()
        def hung(self) -> str:
            entered.set()
            release.wait(10)
            finished.set()
            return "late"

    async def main() -> None:
        run = asyncio.ensure_future(F().kickoff_async())
        while not entered.is_set():
            await asyncio.sleep(0.005)
        run.cancel()  # what Ctrl-C does to kickoff(): asyncio.Runner cancels the main task
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(main())  # its end does not join the worker either
    assert not finished.is_set()
    release.set()
    assert finished.wait(10)  # the method finishes in its thread, with nobody waiting for it
