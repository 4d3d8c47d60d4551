"""RPMLimiter with an injected clock: window arithmetic, async and sync waits, threads."""

from __future__ import annotations

import asyncio
import threading

import pytest

from crewgraph.llm import RPMLimiter


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_disabled_limiter_never_waits() -> None:
    limiter = RPMLimiter(None)
    assert not limiter.enabled
    assert all(limiter.try_acquire() for _ in range(1000))
    assert asyncio.run(limiter.acquire()) == 0.0


def test_sliding_window() -> None:
    clock = _Clock()
    limiter = RPMLimiter(2, clock=clock)
    assert limiter.try_acquire()
    clock.now += 10
    assert limiter.try_acquire()
    assert not limiter.try_acquire()
    clock.now += 40
    assert not limiter.try_acquire()  # both still inside the minute
    clock.now += 10.001
    assert limiter.try_acquire()  # the first left the window, the second has not
    assert not limiter.try_acquire()
    assert limiter.in_window() == 2


def test_async_acquire_sleeps_until_a_slot_frees(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    limiter = RPMLimiter(1, period=10.0, clock=clock)
    slept: list[float] = []

    async def fake_sleep(delay: float) -> None:
        slept.append(delay)
        clock.now += delay

    monkeypatch.setattr("asyncio.sleep", fake_sleep)
    assert asyncio.run(limiter.acquire()) == 0.0
    clock.now += 4
    waited = asyncio.run(limiter.acquire())
    assert slept == [pytest.approx(6.0)] and waited == pytest.approx(6.0)


def test_sync_acquire(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    limiter = RPMLimiter(1, period=5.0, clock=clock)

    def fake_sleep(delay: float) -> None:
        clock.now += delay

    monkeypatch.setattr("crewgraph.llm.rate_limit.time.sleep", fake_sleep)
    limiter.acquire_sync()
    assert limiter.acquire_sync() == pytest.approx(5.0)


def test_threads_never_exceed_the_limit() -> None:
    clock = _Clock()
    limiter = RPMLimiter(50, clock=clock)
    granted: list[bool] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(20):
            ok = limiter.try_acquire()
            with lock:
                granted.append(ok)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert granted.count(True) == 50


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError):
        RPMLimiter(-1)
    with pytest.raises(ValueError):
        RPMLimiter(5, period=0)


def test_clients_of_one_model_and_endpoint_share_a_window() -> None:
    from crewgraph.llm import LLM

    a = LLM(model="m", base_url="http://127.0.0.1:9/v1", max_rpm=7)
    b = LLM(model="m", base_url="http://127.0.0.1:9/v1", max_rpm=7)
    c = LLM(model="other", base_url="http://127.0.0.1:9/v1", max_rpm=7)
    assert a.rate_limiter is b.rate_limiter
    assert a.rate_limiter is not c.rate_limiter
