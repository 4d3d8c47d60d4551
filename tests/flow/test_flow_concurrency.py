"""Listeners of one method overlap (sync ones in threads); proven with barriers, not clocks."""

from __future__ import annotations

import asyncio
import threading

from crewgraph.flow import Flow, and_, listen, start


def test_sync_listeners_of_one_method_run_in_parallel_threads() -> None:
    barrier = threading.Barrier(3, timeout=10)  # breaks unless all three wait at once
    threads: set[str] = set()

    class F(Flow):
        @start()
        def begin(self) -> str:
            return "go"

        def _meet(self, name: str) -> str:
            barrier.wait()
            threads.add(threading.current_thread().name)
            return name

        @listen(begin)
        def one(self, _: str) -> str:
            return self._meet("one")

        @listen(begin)
        def two(self, _: str) -> str:
            return self._meet("two")

        @listen(begin)
        def three(self, _: str) -> str:
            return self._meet("three")

        @listen(and_(one, two, three))
        def joined(self) -> str:
            return "joined"

    flow = F()
    assert flow.kickoff() == "joined"
    assert len(threads) == 3 and threading.main_thread().name not in threads
    assert sorted(flow.method_outputs[1:4]) == ["one", "three", "two"]


def test_async_listeners_overlap_on_the_loop() -> None:
    class F(Flow[dict]):
        @start()
        async def begin(self) -> None:
            self.state["ready"] = {n: asyncio.Event() for n in ("x", "y")}

        async def _meet(self, me: str, other: str) -> str:
            self.state["ready"][me].set()
            await asyncio.wait_for(self.state["ready"][other].wait(), 10)
            return me

        @listen(begin)
        async def x(self) -> str:
            return await self._meet("x", "y")

        @listen(begin)
        async def y(self) -> str:
            return await self._meet("y", "x")

    flow = F()
    flow.kickoff()
    assert sorted(flow.method_outputs[1:]) == ["x", "y"]


def test_several_starts_run_concurrently() -> None:
    barrier = threading.Barrier(2, timeout=10)

    class F(Flow):
        @start()
        def a(self) -> str:
            barrier.wait()
            return "a"

        @start()
        def b(self) -> str:
            barrier.wait()
            return "b"

    flow = F()
    flow.kickoff()
    assert sorted(flow.method_outputs) == ["a", "b"]


def test_kickoff_from_inside_a_running_loop_and_kickoff_async() -> None:
    class F(Flow):
        @start()
        def a(self) -> int:
            return 41

        @listen(a)
        async def b(self, n: int) -> int:
            return n + 1

    async def main() -> tuple[int, int]:
        sync_result = F().kickoff()  # a loop is running here: run_sync uses a worker thread
        return sync_result, await F().kickoff_async()

    assert asyncio.run(main()) == (42, 42)
