"""Benchmark: how big the executed-graph picture of a real-sized run is, and how long it takes.

Runs crews on scripted models (``FakeLLM``, offline, no API key) and renders
their executed graph with Graphviz's ``dot``:

- ``10 tasks x 5 calls (parallel)``: each agent asks for three searches in one
  turn, then a file read, then a calculation -- 50 tool calls in all;
- ``10 tasks x 5 calls (one per turn)``: the same calls, one per model turn;
- ``main job``: ``examples/project_briefing.py``'s crew on its offline model
  (24 calls in one turn in its first task).

For each: nodes in the run, nodes drawn, ``to_dot()`` time, ``dot -Tpng`` time
and the PNG's width x height in pixels (read from the file). Figures go in
docs/benchmarks.md ("Pictures of a run").

Run: ``.venv/bin/python scripts/bench_plot.py``
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "export"))  # the crews the layout tests draw

from _big_crew import big_run  # noqa: E402

from crewgraph.graph import RunGraph  # noqa: E402


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def _main_job_run(out: Path) -> RunGraph:
    spec = importlib.util.spec_from_file_location("project_briefing", ROOT / "examples" / "project_briefing.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    captured: list[RunGraph] = []
    original = RunGraph.render

    def render(self: RunGraph, path: object, format: str | None = None, **options: object) -> object:
        captured.append(self)
        return original(self, path, format, **options)

    RunGraph.render = render  # type: ignore[method-assign]
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the job's own report
            module.main([str(ROOT / "crewgraph"), "--out", str(out)])
    finally:
        RunGraph.render = original  # type: ignore[method-assign]
    return captured[-1]


def _measure(name: str, run: RunGraph, tmp: Path) -> None:
    run.to_dot()  # imports (graphviz, networkx) and caches out of the figure
    start = time.perf_counter()
    dot = run.to_dot()
    build_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    png = Path(run.render(tmp / f"{len(name)}.png"))
    render_ms = (time.perf_counter() - start) * 1000
    width, height = _png_size(png)
    drawn = dot.count(" shape=")
    print(
        f"{name:<34} {len(run.records()):>5} {drawn:>6} {build_ms:>9.1f} {render_ms:>10.0f}"
        f" {width:>6} x {height:<6} {width / height:>5.2f}"
    )


def main() -> None:
    print(f"{'run':<34} {'nodes':>5} {'drawn':>6} {'to_dot ms':>9} {'render ms':>10} {'png px':>15} {'w/h':>5}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        _measure("10 tasks x 5 calls (parallel)", big_run(10, parallel=True), tmp)
        _measure("10 tasks x 5 calls (one per turn)", big_run(10, parallel=False), tmp)
        _measure("main job", _main_job_run(tmp / "briefing"), tmp)


if __name__ == "__main__":
    main()
