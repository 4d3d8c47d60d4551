"""How fast the web UI answers over a store of many runs (``crewgraph ui`` / ``serve``).

Fills a checkpoint database with N runs of a two-task crew (FakeLLM, one tool call each), then
times, through the ASGI app in process (Starlette's test client, so no network noise):
``GET /runs`` (the list: one summary per run), ``GET /runs/{id}`` (one run with its rebuilt
executed graph), ``GET /runs/{id}/graph.svg`` cold (Graphviz ``dot`` runs) and warm (cached),
and ``GET /runs/{id}/nodes/{node}`` (the panel). Median of repeated requests.

    .venv/bin/python scripts/bench_ui.py [--runs 200] [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
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


def _median_ms(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="crewgraph-bench-ui-"))
    (root / "benchcrew.py").write_text(textwrap.dedent(CREW), encoding="utf-8")
    os.environ["CREWGRAPH_STORAGE_DIR"] = str(root / "store")
    os.chdir(root)
    sys.path.insert(0, str(root))

    import benchcrew  # type: ignore[import-not-found]
    from starlette.testclient import TestClient

    from crewgraph.ui import UISettings, create_app

    start = time.perf_counter()
    run_id = ""
    for i in range(args.runs):
        crew = benchcrew.build()
        crew.checkpoint = True
        run_id = crew.kickoff(inputs={"topic": f"t{i}"}).run_id
    fill = time.perf_counter() - start
    app = create_app(UISettings(targets=["benchcrew:build"], cwd=root))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert len(client.get("/runs?limit=1000").json()["runs"]) == args.runs
        list_ms = _median_ms(lambda: client.get("/runs?limit=1000"), args.repeat)
        one_ms = _median_ms(lambda: client.get(f"/runs/{run_id}"), args.repeat)
        start = time.perf_counter()
        assert "<svg" in client.get(f"/runs/{run_id}/graph.svg").text
        cold_ms = (time.perf_counter() - start) * 1000
        warm_ms = _median_ms(lambda: client.get(f"/runs/{run_id}/graph.svg"), args.repeat)
        node_ms = _median_ms(lambda: client.get(f"/runs/{run_id}/nodes/t1_research_topic.agent"), args.repeat)
    print(f"store: {args.runs} runs of a 2-task crew (filled in {fill:.1f} s)")
    print(f"GET /runs (all {args.runs})        {list_ms:8.1f} ms")
    print(f"GET /runs/{{id}}                  {one_ms:8.1f} ms")
    print(f"GET /runs/{{id}}/graph.svg cold   {cold_ms:8.1f} ms (dot)")
    print(f"GET /runs/{{id}}/graph.svg warm   {warm_ms:8.1f} ms")
    print(f"GET /runs/{{id}}/nodes/{{node}}     {node_ms:8.1f} ms")


if __name__ == "__main__":
    main()
