"""Declarative flows: YAML/JSON definitions load with file:line errors, compile to the same
graph as the equivalent class, run, and round-trip."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import ConfigurationError
from crewgraph.export import plan_to_json
from crewgraph.flow import Flow, listen, or_, router, start
from crewgraph.flow.definition import dump_flow, flow_class, load_flow, parse_flow
from crewgraph.testing import FakeLLM

YAML = """\
name: review_flow
state:
  topic: flows
methods:
  draft:
    start: true
    output: "draft about {topic}"
  check:
    router: draft
    emit: [ok, redo]
    call: "flow_steps_for_tests:check"
  publish:
    listen: ok
    output: "published {input}"
  finish:
    listen: {or: [publish, redo]}
    output: "end of {topic}"
"""


@pytest.fixture
def steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "flow_steps_for_tests.py").write_text(
        "def check(flow, value):\n    return 'ok' if 'draft' in str(value) else 'redo'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("flow_steps_for_tests", None)


def _shape(graph: Any) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    data = plan_to_json(graph)
    nodes = sorted((n["id"], n["kind"]) for n in data["nodes"])
    edges = sorted((e["source"], e["target"], str(e.get("route"))) for e in data["edges"])
    return nodes, edges


def test_a_yaml_flow_runs_and_compiles_to_the_same_graph_as_a_class(steps: Path) -> None:
    (steps / "flow.yaml").write_text(YAML)
    Declared = load_flow(steps / "flow.yaml")
    flow = Declared()
    assert flow.kickoff() == "end of flows"
    assert flow.method_outputs == ["draft about flows", "ok", "published draft about flows", "end of flows"]
    assert flow.flow_name == "review_flow"

    class ReviewFlow(Flow[dict]):
        name = "review_flow"

        @start()
        def draft(self) -> str: ...

        @router(draft, emit=["ok", "redo"])
        def check(self) -> str: ...

        @listen("ok")
        def publish(self) -> str: ...

        @listen(or_(publish, "redo"))
        def finish(self) -> str: ...

    assert _shape(Declared().compile()) == _shape(ReviewFlow().compile())


def test_definitions_round_trip_through_yaml_and_json(steps: Path) -> None:
    original = parse_flow(YAML, "flow.yaml")
    cls = flow_class(original)
    for name in ("again.yaml", "again.json"):
        written = dump_flow(cls, steps / name)
        assert parse_flow(written.read_text(), name).to_dict() == original.to_dict()
    assert load_flow(steps / "again.json")().kickoff() == "end of flows"


def test_crews_and_agents_are_referenced_by_name(steps: Path) -> None:
    llm = FakeLLM(default="draft notes on flows")
    writer = Agent(role="Writer", goal="write", backstory="b", llm=llm)
    crew = Crew(agents=[writer], tasks=[Task(description="Write about {topic}", expected_output="notes", agent=writer)])
    text = YAML.replace('    output: "draft about {topic}"', "    crew: writers").replace(
        '    output: "published {input}"', "    agent: editor\n    prompt: \"Polish: {input}\""
    )
    Declared = flow_class(parse_flow(text), crews={"writers": crew}, agents={"editor": writer})
    flow = Declared()
    assert flow.kickoff() == "end of flows"
    assert flow.method_outputs[0] == "draft notes on flows" and flow.method_outputs[2] == "draft notes on flows"
    assert "Write about flows" in llm.calls[0].prompt and "Polish: draft notes on flows" in llm.calls[1].prompt


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("name: x\nmethods:\n  a:\n    start: true\n    output: 1\n  b:\n    listen: a\n    crew: nope\n",
         "flow.yaml:8: method 'b': no crew named 'nope'"),
        ("name: x\nmethods:\n  a:\n    start: true\n", "flow.yaml:3: method 'a': needs exactly one action"),
        ("name: x\nmethods:\n  a:\n    start: true\n    listen: b\n    output: 1\n",
         "flow.yaml:3: method 'a': needs exactly one of start/listen/router"),
        ("name: x\nmethods:\n  a:\n    start: true\n    output: 1\n    colour: red\n",
         "flow.yaml:6: methods.a.colour: Extra inputs are not permitted"),
        ("name: x\nmethods:\n  a:\n    start: true\n    output: [1\n", "flow.yaml:6: invalid YAML/JSON"),
        ("name: x\nmethods:\n  a:\n    start: true\n    output: 1\n  b:\n    listen: b\n    output: 2\n",
         "flow.yaml:6: flow 'x': methods 'b' -> 'b' form a cycle"),
    ],
)
def test_mistakes_name_the_file_and_line(text: str, fragment: str) -> None:
    with pytest.raises(ConfigurationError) as err:
        flow_class(parse_flow(text, "flow.yaml"))
    assert fragment in str(err.value)


def test_crewgraph_run_runs_a_yaml_flow(steps: Path) -> None:
    from typer.testing import CliRunner

    from crewgraph.cli.app import app

    (steps / "flow.yaml").write_text(YAML)
    result = CliRunner().invoke(app, ["run", "flow.yaml", "--quiet", "--no-checkpoint"])
    assert result.exit_code == 0, result.output
    assert "end of flows" in result.output


def test_a_persisted_declarative_run_resumes_from_its_file(steps: Path, storage_dir: Path) -> None:
    from crewgraph.flow import Flow as BaseFlow

    text = YAML.replace("name: review_flow\n", "name: review_flow\npersist: true\n").replace(
        '    output: "published {input}"', '    ask: "Publish {input}?"'
    )
    (steps / "asking.yaml").write_text(text)
    pending = load_flow(steps / "asking.yaml")().kickoff()
    assert pending.question == "Publish draft about flows?"
    # A fresh class lookup, as another process would do: the run names its definition file.
    assert BaseFlow.resume(pending.run_id, "yes") == "end of flows"
