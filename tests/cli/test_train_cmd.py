"""`crewgraph train / test / log-tasks-outputs / replay -t TASK_ID` as `crewai`'s commands,
in real subprocesses (reviews typed on stdin), offline on a scripted FakeLLM."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent(
    """
    from crewgraph import Agent, Crew, Task
    from crewgraph.testing import FakeLLM
    from crewgraph.training.evaluation import TrainingTaskEvaluation


    def reply(request):
        if request.response_model is TrainingTaskEvaluation:
            return TrainingTaskEvaluation(suggestions=["Be brief"], quality=9, final_summary="1. be brief")
        if request.response_model is not None:
            return request.response_model(quality=7)
        last = request.messages[-1]["content"]
        return "short poem" if "Human feedback" in str(last) else "long poem about " + str(last)[14:30]


    def crew():
        poet = Agent(role="Poet", goal="Write", llm=FakeLLM(default=reply))
        return Crew(name="poets", agents=[poet], tasks=[
            Task(name="poem", description="Write a poem on {topic}", expected_output="poem", agent=poet),
            Task(name="title", description="Title it", expected_output="title", agent=poet),
        ])
    """
)


def _cli(cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{cwd}", "CREWGRAPH_STORAGE_DIR": str(cwd / "store")}
    env.pop("CREWGRAPH_LLM", None)
    return subprocess.run([sys.executable, "-m", "crewgraph.cli", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=90)


def test_train_then_kickoffs_follow_the_suggestions(tmp_path: Path) -> None:
    (tmp_path / "poems.py").write_text(MODULE, encoding="utf-8")
    proc = _cli(tmp_path, "train", "-n", "1", "-f", "trained_agents_data.pkl", "poems:crew", "-i", "topic=sea",
                stdin="make it short\n\n")
    assert proc.returncode == 0, proc.stderr
    assert "long poem" in proc.stderr and "Give feedback" in proc.stderr  # the review, on the terminal
    with open(tmp_path / "trained_agents_data.pkl", "rb") as f:
        assert pickle.load(f) == {"Poet": {"suggestions": ["Be brief"], "quality": 9.0, "final_summary": "1. be brief"}}
    assert "Training complete" in proc.stderr



def test_mistakes_are_one_line_errors(cli, tmp_path: Path) -> None:  # in-process: no model runs
    (tmp_path / "poems.py").write_text(MODULE, encoding="utf-8")
    bad = cli("train", "-n", "0", "poems:crew")
    assert bad.exit_code == 2 and "Traceback" not in bad.output and "-n" in bad.stderr
    bad = cli("train", "-f", "model.txt", "poems:crew")
    assert bad.exit_code == 1 and "must end with .pkl" in bad.stderr
    none = cli("log-tasks-outputs", "poems:crew")
    assert none.exit_code == 1 and "no checkpoint database" in none.stderr


def test_test_prints_the_score_table(tmp_path: Path) -> None:
    (tmp_path / "poems.py").write_text(MODULE, encoding="utf-8")
    proc = _cli(tmp_path, "test", "-n", "2", "-m", "fake", "poems:crew", "-i", "topic=sun", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "Tasks Scores" in proc.stderr and "Run 2" in proc.stderr and "Execution Time (s)" in proc.stderr
    data = json.loads(proc.stdout)  # with --json the table goes to stderr
    assert [t["task"] for t in data["tasks"]] == ["poem", "title"] and data["n_iterations"] == 2


def test_log_tasks_outputs_then_replay_by_task_id(cli, tmp_path: Path) -> None:
    (tmp_path / "poems.py").write_text(MODULE, encoding="utf-8")
    ran = cli("run", "poems:crew", "-q", "-i", "topic=moon")  # in-process; the store is a file
    assert ran.exit_code == 0, ran.output
    log = _cli(tmp_path, "log-tasks-outputs", "poems:crew")
    assert log.returncode == 0, log.stderr
    ids = re.findall(r"^Task \d: ([0-9a-f-]{36})$", log.stdout, re.M)
    assert len(ids) == 2 and "Output: long poem about" in log.stdout
    replay = _cli(tmp_path, "replay", "-t", ids[1], "poems:crew", "-q")
    assert replay.returncode == 0, replay.stderr
    assert "↺" not in replay.stderr
    unknown = cli("replay", "--task_id", "0000", "poems:crew")
    assert unknown.exit_code == 1 and "Task with id '0000' not found" in unknown.stderr


def test_train_and_test_in_a_project_folder(tmp_path: Path) -> None:
    """Without MODULE:ATTR the commands work on the project in the current folder, as crewai's."""
    from crewgraph.cli.create_cmd import scaffold_crew

    root = scaffold_crew("trainable", tmp_path)
    proc = _cli(root, "train", "-n", "1", "--llm", "fake", stdin="be brief\nshorter\n")
    assert proc.returncode == 0, proc.stderr
    with open(root / "trained_agents_data.pkl", "rb") as f:
        trained = pickle.load(f)
    assert trained and all(set(v) == {"suggestions", "quality", "final_summary"} for v in trained.values())
    proc = _cli(root, "test", "-n", "1", "-m", "fake", "--llm", "fake")
    assert proc.returncode == 0, proc.stderr
    assert "Tasks Scores" in proc.stdout and "Task 2" in proc.stdout



def test_a_crewai_style_train_function_is_called_with_its_argv(tmp_path: Path) -> None:
    """CrewAI's main.py has train() reading sys.argv[1:3]; `crewgraph train` calls it so."""
    from crewgraph.cli.create_cmd import scaffold_crew

    root = scaffold_crew("argvtrain", tmp_path)
    main = root / "src" / "argvtrain" / "main.py"
    main.write_text(main.read_text(encoding="utf-8") + textwrap.dedent(
        """

        def train():
            import sys

            Argvtrain().crew().train(n_iterations=int(sys.argv[1]), filename=sys.argv[2],
                                     inputs={"topic": "robots", "current_year": "2031"})
        """
    ), encoding="utf-8")
    proc = _cli(root, "train", "-n", "1", "-f", "custom.pkl", "--llm", "fake", stdin="more detail\n\n")
    assert proc.returncode == 0, proc.stderr
    assert "src/argvtrain/main.py" in proc.stderr and "robots" in proc.stderr  # its inputs reached the crew
    assert (root / "custom.pkl").is_file()
