"""One kickoff of a bench_growth flow shape, for instruction counts (not a test, no timing).

``python scripts/run_flow_shape.py SHAPE N`` builds the flow ``scripts/bench_growth.py`` measures
(``flow``, ``fanout``, ``flow-sync``, ``fanout-sync``), kicks off a 2-method one first (warm-up),
then the N-method one with ``asyncio.run(flow.kickoff_async())``. Run it under callgrind for two
sizes and divide the difference by the methods added:

    cd /tmp && PYTHONPATH=<tree> valgrind --tool=callgrind --callgrind-out-file=/tmp/x.out \\
        .venv/bin/python <tree>/scripts/run_flow_shape.py flow-sync 1100
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from crewgraph.flow import Flow, and_, listen, start


def _method(name: str, sync: bool) -> Callable[..., Any]:
    if sync:
        def fn(self: Any, *args: Any) -> int:
            return 1
    else:
        async def fn(self: Any, *args: Any) -> int:  # type: ignore[misc]
            return 1
    fn.__name__ = fn.__qualname__ = name
    return fn


def build(shape: str, n: int) -> Flow[Any]:
    sync = shape.endswith("-sync")
    body: dict[str, Any] = {}
    if shape.startswith("fanout"):
        body["root"] = start()(_method("root", sync))
        leaves = []
        for i in range(n):
            body[f"m{i}"] = leaf = listen(body["root"])(_method(f"m{i}", sync))
            leaves.append(leaf)
        body["end"] = listen(and_(*leaves))(_method("end", sync))
        return type("FanOut", (Flow,), body)()  # type: ignore[no-any-return]
    prev = body["m0"] = start()(_method("m0", sync))
    for i in range(1, n):
        prev = body[f"m{i}"] = listen(prev)(_method(f"m{i}", sync))
    return type("Chain", (Flow,), body)()  # type: ignore[no-any-return]


def main() -> None:
    shape, n = sys.argv[1], int(sys.argv[2])
    asyncio.run(build(shape, 2).kickoff_async())
    asyncio.run(build(shape, n).kickoff_async())


if __name__ == "__main__":
    main()
