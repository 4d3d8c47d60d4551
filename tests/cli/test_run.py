"""`crewgraph run`: targets, inputs, progress, quiet, JSON, --llm fake."""

from __future__ import annotations

import json
from pathlib import Path

from _cli_modules import CREW_MODULE, FLOW_MODULE


def test_run_scaffolded_project_with_fake_llm(cli, project: Path) -> None:
    result = cli("run", "--llm", "fake", "-i", "topic=robots")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("(fake answer from crewgraph --llm fake)")
    assert "✔ research_task" in result.stderr and "✔ reporting_task" in result.stderr
    assert "inputs: topic='robots'" in result.stderr
    assert "finished" in result.stderr and " · run " in result.stderr
    assert (project / "report.md").read_text(encoding="utf-8") == result.stdout.strip()


def test_quiet_prints_only_the_result(cli, project: Path) -> None:
    result = cli("run", "--llm", "fake", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1 and "fake answer" in result.stdout


def test_llm_from_the_environment(cli, project: Path, monkeypatch) -> None:
    monkeypatch.setenv("CREWGRAPH_LLM", "fake")
    result = cli("run", "-q")
    assert result.exit_code == 0, result.output
    assert "fake answer" in result.stdout


def test_every_kind_of_target(cli, write_module) -> None:
    mod = write_module(CREW_MODULE)
    for spec, expected in [
        (f"{mod}:my_crew", "post"),  # a Crew instance
        (f"{mod}:make_crew", "post"),  # a function returning a Crew
        (f"{mod}:Project", "solo answer"),  # a @CrewBase class
        (f"{mod}.py:Project", "solo answer"),  # a file path
    ]:
        result = cli("run", spec, "-q", "-i", "topic=AI", "--no-checkpoint")
        assert result.exit_code == 0, (spec, result.output)
        assert result.stdout.strip() == expected, spec


def test_a_flow_class(cli, write_module) -> None:
    mod = write_module(FLOW_MODULE)
    result = cli("run", mod, "-i", "name=Ada")  # the module's one flow is found
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "HELLO Ada"
    assert "✔ begin" in result.stderr and "✔ shout" in result.stderr


def test_json_output(cli, write_module) -> None:
    mod = write_module(CREW_MODULE)
    result = cli("run", f"{mod}:make_crew", "-q", "--json", "-i", "topic=AI")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["raw"] == "post"
    assert [t["name"] for t in data["tasks"]] == ["research", "write"]
    assert data["token_usage"]["total_tokens"] > 0 and data["run_id"]


def test_default_inputs_from_pyproject_and_override(cli, project: Path) -> None:
    result = cli("run", "--llm", "fake", "--json", "-q")
    assert result.exit_code == 0, result.output
    shown = cli("checkpoints", "show", json.loads(result.stdout)["run_id"], "--json")
    assert json.loads(shown.stdout)["meta"]["inputs"]["topic"] == "AI agents"
    result = cli("run", "--llm", "fake", "--json", "-q", "-i", "topic=bees")
    shown = cli("checkpoints", "show", json.loads(result.stdout)["run_id"], "--json")
    assert json.loads(shown.stdout)["meta"]["inputs"]["topic"] == "bees"
