"""CodeInterpreterTool: a real child interpreter, fresh directory, timeout, exit codes."""

from __future__ import annotations

import asyncio
import json
import os

from crewgraph.graph import NodeContext
from crewgraph.llm.types import ToolCall
from crewgraph.nodes.tool_call import ToolCallNode
from crewgraph.toolkit import CodeExecutionResult, CodeInterpreterTool, code_interpreter_tool


def test_runs_code_and_captures_output() -> None:
    result = CodeInterpreterTool().run(code="print(6 * 7)\nimport sys; print('warn', file=sys.stderr)")
    assert isinstance(result, CodeExecutionResult)
    assert (result.stdout, result.stderr, result.exit_code, result.timed_out) == ("42\n", "warn\n", 0, False)
    assert result.ok


def test_errors_and_exit_codes_are_reported() -> None:
    result = CodeInterpreterTool().run(code="raise SystemExit(3)")
    assert result.exit_code == 3 and not result.ok
    crash = CodeInterpreterTool().run(code="1/0")
    assert crash.exit_code == 1 and "ZeroDivisionError" in crash.stderr


def test_fresh_empty_working_directory_each_run() -> None:
    code = "import os; print(os.listdir('.')); open('left.txt', 'w').write('x'); print(os.getcwd())"
    tool = CodeInterpreterTool()
    first, second = tool.run(code=code), tool.run(code=code)
    assert first.stdout.splitlines()[0] == "['main.py']"
    assert second.stdout.splitlines()[0] == "['main.py']"
    first_dir = first.stdout.splitlines()[1]
    assert first_dir != second.stdout.splitlines()[1] and first_dir != os.getcwd()
    assert not os.path.exists(first_dir)


def test_isolated_mode() -> None:
    result = CodeInterpreterTool().run(code="import sys; print(sys.flags.isolated)")
    assert result.stdout.strip() == "1"


def test_timeout_kills_the_process() -> None:
    result = CodeInterpreterTool(timeout=0.5).run(code="import time\ntime.sleep(60)")
    assert result.timed_out and result.exit_code is None
    assert str(result).startswith("timed out")


def test_output_is_capped() -> None:
    result = CodeInterpreterTool(max_output_chars=10).run(code="print('a' * 100)")
    assert result.stdout.startswith("a" * 10) and "more characters cut" in result.stdout


def test_model_reads_a_text_report_and_libraries_are_ignored() -> None:
    tool = CodeInterpreterTool()
    args = {"code": "print('hi')", "libraries_used": ["numpy"]}
    node = ToolCallNode(id="t", call=ToolCall(id="c", name=tool.name, arguments=json.dumps(args)), tool=tool)
    out = asyncio.run(node.run(NodeContext())).output
    assert out.text == "exit code: 0\nstdout:\nhi"
    assert isinstance(out.raw, CodeExecutionResult)


def test_docs_say_it_is_not_a_sandbox() -> None:
    assert "NOT a security sandbox" in (CodeInterpreterTool.__doc__ or "")
    assert "NOT A SECURITY SANDBOX" in (code_interpreter_tool.__doc__ or "")


# --- issue 16 item 4: deadline, survivors, output capped while read --------------------------
import time  # noqa: E402

import pytest  # noqa: E402


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


_DETACHED = (
    "import subprocess, sys\n"
    "p = subprocess.Popen({argv!r}, start_new_session=True)\n"
    "print(p.pid, flush=True)\n"
)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_a_detached_grandchild_does_not_hold_the_tool_and_is_killed() -> None:
    started = time.monotonic()
    result = CodeInterpreterTool(timeout=20).run(code=_DETACHED.format(argv=["sleep", "40"]))
    elapsed = time.monotonic() - started
    assert result.exit_code == 0 and not result.timed_out
    assert elapsed < 10, f"the tool waited {elapsed:.1f}s for a grandchild holding its pipes"
    pid = int(result.stdout.split()[0])
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the grandchild survived the tool"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_the_deadline_holds_against_sleep_infinity_in_its_own_session() -> None:
    code = _DETACHED.format(argv=["sleep", "infinity"]) + "import time\ntime.sleep(60)\n"
    started = time.monotonic()
    result = CodeInterpreterTool(timeout=1).run(code=code)
    assert time.monotonic() - started < 10
    assert result.timed_out and result.exit_code is None
    pid = int(result.stdout.split()[0])
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_huge_output_is_capped_while_read() -> None:
    # 200 MB of stdout: with a read-everything-then-cut tool the parent holds all of it.
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code = "import sys\nblock = 'x' * (1 << 20)\nfor _ in range(200):\n    sys.stdout.write(block)\n"
    result = CodeInterpreterTool(max_output_chars=1000, timeout=60).run(code=code)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.exit_code == 0
    assert result.stdout.startswith("x" * 1000)
    assert "more characters cut" in result.stdout and "209714200 more bytes" in result.stdout and len(result.stdout) < 1200
    assert grown_mb < 50, f"peak memory grew by {grown_mb:.0f} MB"
