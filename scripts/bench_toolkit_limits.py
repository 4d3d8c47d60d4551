"""Bounded tools: what hostile sizes cost the parent process.

- CodeInterpreterTool printing ``--stdout-mb`` MB: the parent's peak RSS growth and time
  (before: 300 MB of stdout took the parent to 893 MB).
- FileReadTool on a ``--file-mb`` MB file: time and peak Python allocations.
- A tool returning ``--result-mb`` MB: the size of the next request to the model.

    .venv/bin/python scripts/bench_toolkit_limits.py [--stdout-mb 300] [--file-mb 200] [--result-mb 20]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.toolkit import CodeInterpreterTool, FileReadTool
from crewgraph.tools import tool


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stdout-mb", type=int, default=300)
    parser.add_argument("--file-mb", type=int, default=200)
    parser.add_argument("--result-mb", type=int, default=20)
    args = parser.parse_args()

    before = _rss_mb()
    start = time.perf_counter()
    code = f"import sys\nblock = 'x' * (1 << 20)\nfor _ in range({args.stdout_mb}):\n    sys.stdout.write(block)\n"
    result = CodeInterpreterTool(timeout=120).run(code=code)
    print(f"CodeInterpreterTool, {args.stdout_mb} MB of stdout: {time.perf_counter() - start:.2f} s, "
          f"parent peak RSS {before:.0f} -> {_rss_mb():.0f} MB, report {len(str(result))} chars")

    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.log"
        with big.open("wb") as fh:
            line = b"a log line with some words in it\n"
            fh.write(line * ((args.file_mb << 20) // len(line)))
        tracemalloc.start()
        start = time.perf_counter()
        text = FileReadTool(base_dir=tmp).run(file_path="big.log")
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"FileReadTool, {args.file_mb} MB file: {elapsed * 1000:.1f} ms, peak allocations {peak:.1f} MB, "
              f"{len(text)} chars returned")

    @tool("dump")
    def dump() -> str:
        """Return a huge page."""
        return "x" * (args.result_mb << 20)

    llm = FakeLLM([FakeToolCall("dump", {}), "done"])
    # respect_context_window=False: measure the cap alone, not the context-window trimming
    agent = Agent(role="Reader", goal="Read", backstory="Reads.", llm=llm, tools=[dump], respect_context_window=False)
    Crew(agents=[agent], tasks=[Task(description="Read", expected_output="x", agent=agent)]).kickoff()
    size = len(json.dumps(llm.calls[1].messages))
    tool_text = next(m["content"] for m in llm.calls[1].messages if m["role"] == "tool")
    print(f"tool returning {args.result_mb} MB: next request {size / 1024:.0f} KB "
          f"(tool message {len(tool_text)} chars)")


if __name__ == "__main__":
    main()
