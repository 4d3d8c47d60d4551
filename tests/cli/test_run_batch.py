"""`crewgraph run` over a list of inputs: a batch, its progress line, failures and resuming."""

from __future__ import annotations

import io
import json
from pathlib import Path

from crewgraph.cli._batch_run import BatchProgress, progress_line
from crewgraph.distributed import BatchResult

BATCH_MODULE = """
from pathlib import Path
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM

CALLS = Path("calls.txt")


def reply(req):
    topic = req.messages[-1]["content"].split("Write about ", 1)[1].split()[0].strip(".")
    with CALLS.open("a") as f:
        f.write(topic + "\\n")
    if topic == "bad" and Path("broken").exists():
        raise RuntimeError("model down for bad")
    return "post on " + topic


a = Agent(role="Writer", goal="Write", backstory="b", llm=FakeLLM(default=reply), max_retry_limit=0)
t = Task(name="write", description="Write about {topic}.", expected_output="post", agent=a)
crew = Crew(name="batch_crew", agents=[a], tasks=[t])
"""


def test_progress_line_shows_done_total_failures_elapsed_and_rate() -> None:
    assert progress_line(600, 1000, 3, 60.0, "1a2b3c4d5e6f") == "batch 1a2b3c4d  600/1000 done · 3 failed · 60.0s · 10.0/s"
    assert progress_line(0, 5, 0, 0.0) == "batch  0/5 done · 0.0s · 0.0/s"
    out = io.StringIO()  # not a terminal: failures and a final line, no carriage returns
    progress = BatchProgress(2, out)
    progress.update(BatchResult(0, {}, output=object(), batch_id="abcdef123"))
    progress.update(BatchResult(1, {}, error="RuntimeError: x", batch_id="abcdef123"))
    progress.close()
    text = out.getvalue()
    assert "\r" not in text and "inputs[1] failed: RuntimeError: x" in text
    assert text.splitlines()[-1].startswith("batch abcdef12  2/2 done · 1 failed")


def test_a_batch_file_runs_once_per_input_with_a_progress_line(cli, write_module, tmp_path: Path) -> None:
    mod = write_module(BATCH_MODULE)
    (tmp_path / "in.jsonl").write_text('{"topic": "ants"}\n\n{"topic": "bees"}\n{"topic": "cats"}\n')
    result = cli("run", f"{mod}:crew", "--batch", "in.jsonl", "--max-concurrency", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["post on ants", "post on bees", "post on cats"]
    assert "3/3 done" in result.stderr and "/s" in result.stderr
    again = cli("run", f"{mod}:crew", "--batch", "in.jsonl", "--json", "-q")  # finished: a new batch
    assert again.exit_code == 0, again.output
    rows = json.loads(again.stdout)
    assert [r["raw"] for r in rows] == ["post on ants", "post on bees", "post on cats"]
    assert not any(r["restored"] for r in rows) and again.stderr == ""


def test_failed_inputs_fail_the_command_and_running_it_again_reruns_only_them(
    cli, write_module, tmp_path: Path
) -> None:
    mod = write_module(BATCH_MODULE)
    (tmp_path / "in.json").write_text(json.dumps([{"topic": "ants"}, {"topic": "bad"}, {"topic": "cats"}]))
    (tmp_path / "broken").touch()
    result = cli("run", f"{mod}:crew", "--batch", "in.json")
    assert result.exit_code == 1
    assert "Error: 1 of 3 inputs failed (inputs[1]: " in result.stderr and "model down for bad" in result.stderr
    assert "run the same command again to re-run only those" in result.stderr
    assert result.stdout.splitlines() == ["post on ants", "post on cats"]
    assert "Traceback" not in result.output
    (tmp_path / "broken").unlink()
    (tmp_path / "calls.txt").unlink()
    fixed = cli("run", f"{mod}:crew", "--batch", "in.json", "-q")
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stdout.splitlines() == ["post on ants", "post on bad", "post on cats"]
    assert (tmp_path / "calls.txt").read_text().split() == ["bad"]


def _crew_ref(project: Path) -> tuple[Path, str]:
    """(main.py, "pkg.crew:ClassName") of a scaffolded project."""
    (main,) = (project / "src").glob("*/main.py")
    line = next(x for x in main.read_text(encoding="utf-8").splitlines() if x.startswith("from ") and ".crew import" in x)
    module, name = line[len("from "):].split(" import ")
    return main, f"{module}:{name.strip()}"


def test_a_list_of_project_inputs_runs_as_a_batch(cli, project: Path) -> None:
    _main, ref = _crew_ref(project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8").replace(
        '[tool.crewgraph]\ntype = "crew"\n',
        f'[tool.crewgraph]\ntype = "crew"\ncrew = "{ref}"\n\n[[tool.crewgraph.inputs]]\ntopic = "AI agents"\n'
        'current_year = "2026"\n\n[[tool.crewgraph.inputs]]\ntopic = "robots"\ncurrent_year = "2026"\n',
    )
    assert "[[tool.crewgraph.inputs]]" in text
    pyproject.write_text(text, encoding="utf-8")
    result = cli("run", "--llm", "fake", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["inputs"]["topic"] for r in rows] == ["AI agents", "robots"]
    assert "2/2 done" in result.stderr
    bad = cli("run", "--llm", "fake", "-i", "topic=x")
    assert bad.exit_code == 2 and "--inputs cannot be combined with a batch" in bad.stderr


def test_a_project_whose_run_calls_kickoff_for_each_runs_as_a_batch(cli, project: Path) -> None:
    main, ref = _crew_ref(project)
    text = main.read_text(encoding="utf-8")
    cls = ref.split(":")[1]
    main.write_text(text[: text.index("def run() -> None:")] + (
        "def run() -> None:\n"
        f"    outs = {cls}().crew().kickoff_for_each(\n"
        "        inputs=[{'topic': t, 'current_year': '2026'} for t in ('ants', 'bees', 'cats')])\n"
        "    print(len(outs), 'outputs')\n"
    ), encoding="utf-8")
    result = cli("run", "--llm", "fake", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["inputs"]["topic"] for r in rows] == ["ants", "bees", "cats"]
    assert all(r["raw"] and r["run_id"] for r in rows)
    assert "3/3 done" in result.stderr and "3 outputs" in result.stderr  # the entry's prints go to stderr


def test_bad_batch_files_are_one_line_errors(cli, write_module, tmp_path: Path) -> None:
    mod = write_module(BATCH_MODULE)
    (tmp_path / "bad.jsonl").write_text('{"topic": "ants"}\n{"topic": \n')
    result = cli("run", f"{mod}:crew", "--batch", "bad.jsonl")
    assert result.exit_code == 1 and "bad.jsonl:2: invalid JSON line" in result.stderr
    (tmp_path / "list.json").write_text('[{"topic": "a"}, "b"]')
    result = cli("run", f"{mod}:crew", "--batch", "list.json")
    assert result.exit_code == 1 and "item 1: each input must be a JSON object" in result.stderr
    result = cli("run", f"{mod}:crew", "--batch", "missing.json")
    assert result.exit_code == 1 and "cannot read it" in result.stderr

