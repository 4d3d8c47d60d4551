"""`crewgraph run`: targets, inputs, progress, quiet, JSON, --llm fake."""

from __future__ import annotations

import importlib
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


def test_llm_on_a_flow_without_crews(cli, write_module, monkeypatch) -> None:
    """--llm (or CREWGRAPH_LLM) on a flow applies to the crews it kicks off; a flow that
    kicks off none runs as it is."""
    mod = write_module(FLOW_MODULE)
    monkeypatch.setenv("CREWGRAPH_LLM", "fake")
    result = cli("run", mod, "-q", "-i", "name=Ada")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "HELLO Ada"
    explicit = cli("run", mod, "-q", "--llm", "fake", "-i", "name=Bo")
    assert explicit.exit_code == 0 and explicit.stdout.strip() == "HELLO Bo"


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
    instance = write_module(FLOW_MODULE + "\nflow = Greeting()\n")
    result = cli("run", f"{instance}:flow", "-q", "-i", "name=Grace")  # a Flow instance
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "HELLO Grace"
    ambiguous = cli("run", instance)
    assert ambiguous.exit_code == 1 and "several crews" in ambiguous.stderr


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


def test_llm_fake_reaches_every_model_of_the_crew(write_module) -> None:
    from pydantic import BaseModel

    from crewgraph.cli._llm import apply_llm
    from crewgraph.cli._target import load_target

    mod = write_module(
        "from crewgraph import Agent, Crew, Task\nfrom crewgraph.memory import Memory\n"
        "a = Agent(role='R', goal='g', llm='gpt-4o', function_calling_llm='gpt-4o')\n"
        "crew = Crew(agents=[a], tasks=[Task(description='d', expected_output='e', agent=a)],"
        " memory=Memory(storage=':memory:'), manager_llm='gpt-4o')\n"
    )
    target = load_target(f"{mod}:crew")
    apply_llm(target, "fake")
    crew = target.obj
    fake = crew.llm
    assert type(fake).__name__ == "FakeLLM"
    assert crew.agents[0].llm is fake and crew.agents[0].function_calling_llm is fake
    assert crew.manager_llm is fake and crew.get_memory().llm is fake

    class Report(BaseModel):
        title: str
        score: int
        tags: list[str]

    reply = fake.call("summarise", response_model=Report)
    assert reply.parsed == Report(title="demo title", score=1, tags=["demo tags"])  # non-empty: lists get items
    assert fake.call("Current Task: write\nmore").content == "(fake answer from crewgraph --llm fake) write"


HUMAN_MODULE = """
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM

llm = FakeLLM(["draft", "shorter draft"], default="again")
a = Agent(role="Writer", goal="g", backstory="b", llm=llm)
crew = Crew(name="reviewed", agents=[a], tasks=[Task(description="Write", expected_output="x", agent=a, human_input=True)])
"""


def test_human_input_on_the_terminal(cli, write_module) -> None:
    """Feedback is read from stdin with the prompt on stderr (stdout stays the answer alone),
    and the end of input accepts the answer instead of failing the task."""
    mod = write_module(HUMAN_MODULE)
    result = cli("run", f"{mod}:crew", "-q", "--no-checkpoint", input="make it shorter\n\n")
    assert result.exit_code == 0, result.output
    assert result.stdout == "shorter draft\n"
    assert result.stderr.count("Give feedback to improve it") == 2
    llm = importlib.import_module(mod).llm
    assert "Human feedback on your answer: make it shorter" in llm.calls[1].prompt
    closed = cli("run", f"{mod}:crew", "-q", "--no-checkpoint", input="")  # stdin at its end: accepted
    assert closed.exit_code == 0, closed.output
    assert closed.stdout == "again\n" and len(llm.calls) == 3
