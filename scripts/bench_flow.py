"""Benchmark: per-method overhead of flows on the shared scheduler (not a timed test).

Two shapes, each with sync methods (run in worker threads) and async ones:

- chain:   start -> m1 -> m2 -> ... -> m200 (each listens to the previous one)
- fan-out: start -> 200 listeners -> one ``and_`` of all 200 -> end

The methods do nothing, so the time per method is pure framework overhead:
the node step, its four events (node and method started/finished), the
scheduler's bookkeeping and, for sync methods, the hop to a worker thread.
The first kickoff (which also compiles the graph) is reported apart.

Run: ``.venv/bin/python scripts/bench_flow.py [--n 200] [--repeat 20]``
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from crewgraph.flow import Flow, and_, listen, start


def _method(is_async: bool, name: str) -> Callable[..., Any]:
    if is_async:
        async def fn(self: Any, *args: Any) -> int:
            return 1
    else:
        def fn(self: Any, *args: Any) -> int:  # type: ignore[misc]
            return 1
    fn.__name__ = fn.__qualname__ = name
    return fn


def chain_flow(n: int, is_async: bool) -> type[Flow[Any]]:
    body: dict[str, Any] = {}
    prev = start()(_method(is_async, "m0"))
    body["m0"] = prev
    for i in range(1, n + 1):
        prev = listen(prev)(_method(is_async, f"m{i}"))
        body[f"m{i}"] = prev
    return type(f"Chain{n}{'Async' if is_async else 'Sync'}", (Flow,), body)


def fanout_flow(n: int, is_async: bool) -> type[Flow[Any]]:
    body: dict[str, Any] = {}
    root = start()(_method(is_async, "root"))
    body["root"] = root
    leaves = []
    for i in range(n):
        leaf = listen(root)(_method(is_async, f"leaf{i}"))
        body[f"leaf{i}"] = leaf
        leaves.append(leaf)
    body["end"] = listen(and_(*leaves))(_method(is_async, "end"))
    cls = type(f"FanOut{n}{'Async' if is_async else 'Sync'}", (Flow,), body)
    cls.max_concurrency = n + 2
    return cls


def _measure(cls: type[Flow[Any]], methods: int, repeat: int) -> dict[str, float]:
    flow = cls()
    t0 = time.perf_counter()
    asyncio.run(flow.kickoff_async())
    first = time.perf_counter() - t0
    assert len(flow.method_outputs) == methods, (len(flow.method_outputs), methods)
    runs = []

    async def many() -> None:
        for _ in range(repeat):
            t = time.perf_counter()
            await flow.kickoff_async()
            runs.append(time.perf_counter() - t)

    asyncio.run(many())
    per = [r / methods * 1000 for r in runs]
    return {
        "first_ms": first * 1000,
        "median_ms_per_method": statistics.median(per),
        "best_ms_per_method": min(per),
    }


def _floor(n: int, repeat: int) -> tuple[float, float]:
    """ms per call of the bare mechanisms a method rides on: a thread round trip
    (``asyncio.to_thread``) and an awaited coroutine, chained n times."""

    def f() -> int:
        return 1

    async def g() -> int:
        return 1

    async def chains() -> tuple[float, float]:
        thread, coro = [], []
        for _ in range(repeat):
            t = time.perf_counter()
            for _ in range(n):
                await asyncio.to_thread(f)
            thread.append((time.perf_counter() - t) / n * 1000)
            t = time.perf_counter()
            for _ in range(n):
                await g()
            coro.append((time.perf_counter() - t) / n * 1000)
        return statistics.median(thread), statistics.median(coro)

    return asyncio.run(chains())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="listeners per shape (default 200)")
    parser.add_argument("--repeat", type=int, default=20, help="measured kickoffs per case")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, n={args.n}, repeat={args.repeat}")
    t = time.perf_counter()
    for module in ("crewgraph.compiler.flow_compiler", "crewgraph.runtime", "networkx"):
        importlib.import_module(module)  # what the first class definition / kickoff loads

    print(f"one-time imports (compiler, scheduler, networkx): {(time.perf_counter() - t) * 1000:.0f} ms")
    thread_ms, coro_ms = _floor(args.n, args.repeat)
    print(f"floor: asyncio.to_thread round trip {thread_ms:.3f} ms, awaited coroutine {coro_ms:.4f} ms")
    print(f"{'case':<22}{'methods':>8}{'first kickoff':>15}{'median/method':>15}{'best/method':>13}")
    for shape, build, methods in (
        ("chain", chain_flow, args.n + 1),
        ("fan-out + and_", fanout_flow, args.n + 2),
    ):
        for is_async in (False, True):
            r = _measure(build(args.n, is_async), methods, args.repeat)
            case = f"{shape} ({'async' if is_async else 'sync'})"
            print(
                f"{case:<22}{methods:>8}{r['first_ms']:>12.1f} ms"
                f"{r['median_ms_per_method']:>12.3f} ms{r['best_ms_per_method']:>10.3f} ms"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
