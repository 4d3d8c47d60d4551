"""MCP call cost: one session per run (crewgraph) vs a session per call (CrewAI's native configs).

    .venv/bin/python scripts/bench_mcp.py [calls]

Starts the tests' stdio MCP server and makes ``calls`` tool calls through the run's session
pool, then the same number with a fresh session (a new server process) per call, and prints
milliseconds per call for each.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crewgraph.tools.mcp import MCPServerStdio  # noqa: E402
from crewgraph.tools.mcp.connection import open_connection  # noqa: E402
from crewgraph.tools.mcp.sessions import run_sessions  # noqa: E402

SERVER = MCPServerStdio(command=sys.executable, args=[str(ROOT / "tests/tools/mcp/mcp_test_server.py")], name="bench")


async def pooled(calls: int) -> list[float]:
    times = []
    async with run_sessions() as pool:
        start = time.perf_counter()
        conn = await pool.connection(SERVER)
        first = time.perf_counter() - start
        for i in range(calls):
            t = time.perf_counter()
            conn = await pool.connection(SERVER)
            await conn.call_tool("add", {"a": i, "b": 1})
            times.append(time.perf_counter() - t)
    print(f"session start (once per run): {first * 1000:.0f} ms")
    return times


async def per_call(calls: int) -> list[float]:
    times = []
    for i in range(calls):
        t = time.perf_counter()
        async with open_connection(SERVER) as conn:
            await conn.call_tool("add", {"a": i, "b": 1})
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    shared = asyncio.run(pooled(calls))
    fresh = asyncio.run(per_call(max(3, calls // 4)))
    print(f"{calls} calls on the run's session: median {statistics.median(shared) * 1000:.1f} ms per call")
    print(f"{len(fresh)} calls with a session each: median {statistics.median(fresh) * 1000:.0f} ms per call")


if __name__ == "__main__":
    main()
