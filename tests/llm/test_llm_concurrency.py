"""Per-endpoint concurrency: queueing for a one-slot server happens in the client, where it
does not count against the attempt's deadline; without a limit, one is learned from timeouts."""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading

import pytest

from crewgraph import LLM, Agent, Crew, Process, Task
from crewgraph.llm._slots import EndpointSlots, endpoint_slots
from crewgraph.testing import OpenAICompatServer, SlowModel

ANSWER = "a steady answer of about sixty characters, or fifteen tokens"  # 15 tokens: 0.3 s at 0.02 s/token


def _parallel_crew(llm: LLM, n: int = 4) -> Crew:
    agents = [Agent(role=f"Analyst {i}", goal="Analyse", backstory="Careful", llm=llm, max_retry_limit=0)
              for i in range(n)]
    tasks = [Task(name=f"part{i}", description=f"Analyse part {i}", expected_output="a finding", agent=a)
             for i, a in enumerate(agents)]
    return Crew(agents=agents, tasks=tasks, process=Process.parallel)


def test_an_explicit_limit_queues_parallel_tasks_in_the_client() -> None:
    slow = SlowModel(seconds_per_token=0.02, slots=1)
    timeout = 1.2
    with OpenAICompatServer(default=ANSWER, slow_model=slow) as server:
        # Each generation takes 0.3 s (a sleep: never less); six at once on one slot would make the
        # last wait 1.5 s in the server's queue, longer than the attempt's 1.2 s deadline.
        llm = LLM(model="m", base_url=server.base_url, api_key="k", timeout=timeout, max_concurrency=1)
        out = _parallel_crew(llm, 6).kickoff()
    assert [t.raw for t in out.tasks_output] == [ANSWER] * 6
    assert len(server.chat_requests) == 6  # no attempt timed out, none was sent twice
    gens = sorted(slow.generations, key=lambda g: g.queued)
    assert not any(g.abandoned for g in gens)
    # The queueing was in the client: each request reached the server after the one before had
    # finished (none ever waited for the server's slot) ...
    assert all(later.queued >= earlier.ended for earlier, later in itertools.pairwise(gens))
    # ... and the last one waited there longer than the deadline, which it did not count.
    assert gens[-1].queued - gens[0].queued >= 5 * 0.3 > timeout


def test_the_limit_is_learned_from_timeouts_while_others_were_in_flight(caplog: pytest.LogCaptureFixture) -> None:
    slow = SlowModel(seconds_per_token=0.02, slots=1)
    with OpenAICompatServer(default=ANSWER, slow_model=slow) as server:
        # Streamed (idle_timeout): a request given up closes its stream, so the server drops it.
        llm = LLM(model="m", base_url=server.base_url, api_key="k", idle_timeout=0.5, timeout=30)
        with caplog.at_level(logging.WARNING, logger="crewgraph.llm"):
            out = _parallel_crew(llm).kickoff()
        learned = endpoint_slots(server.base_url, None).limit
    assert [t.raw for t in out.tasks_output] == [ANSWER] * 4
    assert learned is not None and learned <= 2
    assert any("sending at most" in r.getMessage() and "CREWGRAPH_LLM_CONCURRENCY" in r.getMessage()
               for r in caplog.records)
    assert any(g.stopped_early for g in slow.generations)  # the abandoned streams stopped the server


def test_slots_are_shared_across_event_loops_and_threads() -> None:
    slots = EndpointSlots("http://x", limit=2)
    peak = 0
    lock = threading.Lock()

    async def worker() -> None:
        nonlocal peak
        await slots.acquire()
        try:
            with lock:
                peak = max(peak, slots.in_flight)
            await asyncio.sleep(0.01)
        finally:
            slots.release()

    async def many() -> None:
        await asyncio.gather(*(worker() for _ in range(10)))

    threads = [threading.Thread(target=asyncio.run, args=(many(),)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert peak == 2 and slots.in_flight == 0


def test_learning_halves_the_limit_and_leaves_an_explicit_one_alone() -> None:
    learned = EndpointSlots("http://y")
    learned.in_flight = 5
    learned.note_timeout()
    assert learned.limit == 2
    learned.in_flight = 1  # alone: the server is slow, not busy
    learned.note_timeout()
    assert learned.limit == 2
    explicit = EndpointSlots("http://z", limit=4)
    explicit.in_flight = 4
    explicit.note_timeout()
    assert explicit.limit == 4


def test_a_cancelled_waiter_takes_no_slot() -> None:
    async def scenario() -> int:
        slots = EndpointSlots("http://w", limit=1)
        await slots.acquire()
        waiter = asyncio.ensure_future(slots.acquire())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        slots.release()
        await asyncio.wait_for(slots.acquire(), 1)  # the slot is free again
        return slots.in_flight

    assert asyncio.run(scenario()) == 1
