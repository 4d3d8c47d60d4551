"""Many readers of the run list at once: ``GET /runs?limit=1000`` over 1,000 stored runs.

Fills a checkpoint database with ``--runs`` runs of a two-task crew (FakeLLM, one tool call
each), starts the real server (``crewgraph serve``, uvicorn, in a subprocess on 127.0.0.1),
then sends ``--readers`` simultaneous ``GET /runs?limit=1000`` requests (accepting gzip, as
browsers do), ``--rounds`` times, each on its own connection, and reports each request's latency (p50, p95, max). The goal of
issue 26: 200 concurrent readers over 1,000 runs with p95 under 1 s.

    .venv/bin/python scripts/bench_ui_readers.py [--runs 1000] [--readers 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

CREW = '''
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("lookup")
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def build():
    llm = FakeLLM([FakeToolCall("lookup", {"query": "x"}), "facts", "summary"], model="fake")
    a = Agent(role="researcher", goal="learn", backstory="curious", llm=llm, tools=[lookup])
    return Crew(name="benchcrew", agents=[a], tasks=[
        Task(description="research {topic}", expected_output="facts", agent=a),
        Task(description="summarise", expected_output="summary", agent=a),
    ])
'''


def _fill(root: Path, runs: int) -> float:
    sys.path.insert(0, str(root))
    import benchcrew  # type: ignore[import-not-found]

    start = time.perf_counter()
    for i in range(runs):
        crew = benchcrew.build()
        crew.checkpoint = True
        crew.kickoff(inputs={"topic": f"t{i}"})
    return time.perf_counter() - start


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _get(host: str, port: int, path: str) -> tuple[float, bytes]:  # body: raw, checked later
    """One request on its own connection, as a browser sends it (gzip accepted); the time until
    the last byte arrived. Raw asyncio streams: an HTTP client library decoding 200 answers at
    once in this process would measure itself, not the server."""
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept-Encoding: gzip\r\n"
                 "Connection: close\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = head.split(b" ", 2)[1]
    if status != b"200":
        raise SystemExit(f"GET {path} answered {status.decode()}")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    body = await reader.readexactly(length)
    elapsed = time.perf_counter() - start
    writer.close()
    return elapsed, (b"gzip:" if b"content-encoding: gzip" in head.lower() else b"") + body


async def _round(port: int, readers: int, expected: int) -> list[float]:
    answers = await asyncio.gather(*(_get("127.0.0.1", port, "/runs?limit=1000") for _ in range(readers)))
    bodies = {body for _t, body in answers}
    assert len(bodies) == 1  # every reader got the same list; checked after timing
    body = bodies.pop()
    body = gzip.decompress(body[5:]) if body.startswith(b"gzip:") else body
    assert len(json.loads(body)["runs"]) == expected
    return [t for t, _body in answers]


def _wait_ready(base: str, server: subprocess.Popen[bytes], timeout: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            if httpx.get(f"{base}/runs?limit=1", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the server did not answer within {timeout:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--readers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="reuse (or keep) the project folder with its filled store")
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="crewgraph-bench-readers-"))
    root.mkdir(parents=True, exist_ok=True)
    filled = (root / "benchcrew.py").exists()
    (root / "benchcrew.py").write_text(textwrap.dedent(CREW), encoding="utf-8")
    os.environ["CREWGRAPH_STORAGE_DIR"] = str(root / "store")
    os.chdir(root)
    fill = 0.0 if filled else _fill(root, args.runs)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", "from crewgraph.cli import main; main()", "serve", "--crew", "benchcrew:build", "--port", str(port), "--quiet"],
        cwd=root, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *sys.path])},
    )
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_ready(base, server)
        times: list[float] = []
        for number in range(args.rounds):  # the first round also builds the list (cold)
            batch = sorted(asyncio.run(_round(port, args.readers, min(args.runs, 1000))))
            print(f"  round {number + 1}: p50 {batch[len(batch) // 2] * 1000:5.0f} ms   "
                  f"p95 {batch[max(0, int(len(batch) * 0.95) - 1)] * 1000:5.0f} ms")
            times += batch
    finally:
        server.terminate()
        server.wait(timeout=30)
    times.sort()
    p95 = times[max(0, int(len(times) * 0.95) - 1)]
    print(f"store: {args.runs} runs of a 2-task crew (filled in {fill:.1f} s)")
    print(f"{args.readers} simultaneous GET /runs?limit=1000, {args.rounds} rounds ({len(times)} requests)")
    print(f"  p50 {statistics.median(times) * 1000:7.0f} ms   p95 {p95 * 1000:7.0f} ms   max {times[-1] * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
