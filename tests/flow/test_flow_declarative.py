"""CrewAI's declarative flows (crewai.flow/v1): reading, errors with file:line:key, actions, round trips."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from crewgraph.errors import ConfigurationError
from crewgraph.flow import Flow, listen, router, start
from crewgraph.flow.flow_definition import FlowDefinition
from crewgraph.testing.openai_server import OpenAICompatServer

DATA = Path(__file__).parent / "data"


def write(tmp_path: Path, text: str, name: str = "flow.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# ---------------------------------------------------------------------- CrewAI's example
def _model(body: dict[str, Any]) -> str:
    text = " ".join(str(m.get("content")) for m in body["messages"])
    if "Follow-up router" in text:
        return "followup" if "AI agent orchestration" in text else "done"
    if "Executive communications" in text:
        return "MEMO: " + text.rsplit("findings on ", 1)[-1][:40]
    return "findings on " + ("AI agent orchestration" if "AI agent orchestration" in text else "something else")


@pytest.fixture(scope="module")
def model() -> Any:
    with OpenAICompatServer(default=_model) as server:
        yield server


@pytest.fixture
def on_server(model: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_BASE_URL", model.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    return model


def test_crewais_example_runs_and_routes(on_server: Any) -> None:
    with pytest.warns(UserWarning, match="may return 'done', but no method listens"):
        flow = Flow.from_declaration(path=DATA / "crewai_flow_example.yaml")
    assert type(flow).__name__ == "ResearchReviewFlow" and flow.state.topic == "AI agent orchestration"
    assert flow.kickoff() .raw == "MEMO: AI agent orchestration"
    crew_output, label, _memo = flow.method_outputs
    assert [t.name for t in crew_output.tasks_output] == ["research_task", "review_task"]
    assert label == "followup"
    # the crew's task read the state through the action's inputs, not the crew's defaults
    assert crew_output.tasks_output[0].description == "Research AI agent orchestration for platform engineering leaders."
    # kickoff inputs override the declared defaults; the router then picks the other branch
    assert flow.kickoff(inputs={"topic": "tides", "audience": "sailors"}) == "done"


def test_the_graph_is_the_one_a_python_flow_compiles_to() -> None:
    with pytest.warns(UserWarning, match="may return 'done'"):  # as the document: nobody listens to "done"
        class Same(Flow[dict[str, Any]]):
            @start()
            def research_brief(self) -> str:
                return ""

            @router(research_brief, emit=["followup", "done"])
            def route_followup(self) -> str:
                return "done"

            @listen("followup")
            def write_followup(self) -> str:
                return ""

        declared = Flow.from_declaration(path=DATA / "crewai_flow_example.yaml").compile()
    python = Same().compile()
    shape = lambda g: sorted((u, v, d.get("kind"), d.get("route")) for u, v, d in g.digraph.edges(data=True))  # noqa: E731
    kinds = lambda g: sorted((n, g.digraph.nodes[n]["kind"]) for n in g.digraph.nodes)  # noqa: E731
    assert shape(declared) == shape(python) and kinds(declared) == kinds(python)


# ---------------------------------------------------------------------- errors
ERRORS = {
    "schema: crewai.flow/v2\nname: X\n": (1, "schema: unknown flow definition format 'crewai.flow/v2'"),
    "name: X\nmethods:\n  a:\n    start: true\n    bogus: 1\n    do: {call: expression, expr: state.x}\n":
        (5, "methods.a.bogus: unknown key"),
    "name: X\nmethods:\n  a:\n    start: true\n    do:\n      call: agnt\n": (6, "methods.a.do.call: unknown call 'agnt'"),
    "name: X\nmethods:\n  a:\n    start: true\n    do:\n      call: expression\n      expr: stat.x +\n":
        (7, "invalid CEL expression at methods.a.do.expr: 'stat.x +' (syntax error at column 8)"),
    "name: X\nmethods:\n  a:\n    start: true\n    do:\n      call: code\n      ref: os:getcwd\n      with:\n        q: ${inputs.x}\n":
        (9, "unknown CEL root at methods.a.do.with.q: 'inputs'"),
    "name: X\nmethods:\n  a:\n    start: true\n    do:\n      call: agent\n      with:\n        role: r\n":
        (7, "methods.a.do.with.input: required key is missing"),
    "schema: crewai.flow/v1\nmethods: {}\n": (1, "name: required key is missing"),
    "name: X\nmethods:\n  a: [\n": (4, "invalid YAML/JSON"),
    "name: X\nmethods:\n  a:\n    start: true\n    do: {call: code, ref: 'nosuch_mod_x:fn'}\n":
        (5, "methods.a.do: cannot import 'nosuch_mod_x:fn'"),
    "name: X\nmethods:\n  a:\n    do: {call: expression, expr: '1'}\n": (3, "methods.a: needs a trigger"),
    "name: X\nmethods:\n  a:\n    start: true\n    do:\n      call: crew\n      with:\n        agents: {r: {role: x}}\n"
    "        tasks: [{description: d, expected_output: e, agent: nobody}]\n": (7, "tasks[0].agent: no agent 'nobody'"),
    "name: X\nconfig:\n  stream: true\nmethods: {}\n": (3, "config.stream: not supported"),
    "name: X\nmethods:\n  bad-name:\n    start: true\n    do: {call: expression, expr: '1'}\n": (1, "must match"),
}


@pytest.mark.parametrize("text", list(ERRORS))
def test_every_error_names_the_file_line_and_key(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    line, message = ERRORS[text]
    with pytest.raises(ConfigurationError) as info:
        Flow.from_declaration(path=path)
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)
    assert message in str(info.value)


def test_a_crewgraph_shorthand_file_still_loads_and_a_crewai_one_through_load_flow(tmp_path: Path) -> None:
    from crewgraph.flow.definition import load_flow

    old = write(tmp_path, "name: old\nmethods:\n  a:\n    start: true\n    output: hi\n", "old.yaml")
    assert load_flow(old)().kickoff() == "hi"
    new = write(tmp_path, "name: new\nmethods:\n  a:\n    start: true\n    do: {call: expression, expr: \"'hi'\"}\n")
    assert load_flow(new)().kickoff() == "hi"


# ---------------------------------------------------------------------- actions
def normalize(flow: Any, topic: str, limit: int = 1) -> dict[str, Any]:
    assert isinstance(flow, Flow)  # as CrewAI: a code ref's function is bound to the flow, like a method
    return {"topic": topic.strip().lower(), "limit": limit}


def seen_by(flow: Any, value: Any = None) -> str:
    return f"{type(flow).__name__} got {value!r}"


def test_code_expression_each_and_templates(tmp_path: Path) -> None:
    path = write(tmp_path, f"""\
        schema: crewai.flow/v1
        name: steps
        state: {{type: dict, default: {{topic: "  Flows ", rows: [" a ", "", "b"], limit: 3}}}}
        methods:
          clean:
            start: true
            do: {{call: code, ref: "{__name__}:normalize", with: {{topic: "${{state.topic}}", limit: "${{state.limit}}"}}}}
          text:
            listen: clean
            do: {{call: expression, expr: "outputs.clean.topic + ' x' + string(outputs.clean.limit)"}}
          positional:
            listen: text
            do: {{call: code, ref: "{__name__}:seen_by"}}
          each_row:
            listen: positional
            do:
              call: each
              in: state.rows
              do:
                - name: strip
                  action: {{call: expression, expr: "item == ' a ' ? 'a' : item"}}
                - name: tag
                  if: "outputs.strip != ''"
                  action: {{call: code, ref: "{__name__}:normalize", with: {{topic: "row ${{outputs.strip}}"}}}}
    """)
    flow = Flow.from_declaration(path=path)
    result = flow.kickoff()
    outputs = flow.method_outputs
    assert outputs[0] == {"topic": "flows", "limit": 3}  # a lone ${...} keeps its type (3 stays an int)
    assert outputs[1] == "flows x3"
    assert outputs[2] == "steps got 'flows x3'"  # the flow is bound as self, the trigger's output passed
    assert result == [{"topic": "row a", "limit": 1}, "", {"topic": "row b", "limit": 1}]


def test_an_evaluation_error_says_what_is_unknown(tmp_path: Path) -> None:
    path = write(tmp_path, "name: e\nmethods:\n  a:\n    start: true\n    do: {call: expression, expr: \"'x'.trim()\"}\n")
    with pytest.raises(ValueError, match=r"failed to evaluate CEL expression \"'x'.trim\(\)\": unknown name or function 'trim'"):
        Flow.from_declaration(path=path).kickoff()


def test_script_actions_are_off_unless_enabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, """\
        name: s
        state: {type: dict, default: {n: 2}}
        methods:
          go:
            start: true
            do:
              call: script
              code: |
                state['n'] = state['n'] * 10
                return state['n'] + 1
    """)
    for var in ("CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION", "CREWGRAPH_ALLOW_FLOW_SCRIPT_EXECUTION"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ConfigurationError, match=r"flow.yaml:6: .*set CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION=1"):
        Flow.from_declaration(path=path)
    monkeypatch.setenv("CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION", "1")
    flow = Flow.from_declaration(path=path)
    assert flow.kickoff() == 21 and flow.state["n"] == 20


def test_tool_action_runs_the_tool(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        name: t
        state: {type: dict, default: {dir: "."}}
        methods:
          look:
            start: true
            do: {call: tool, ref: "crewgraph.toolkit:DirectoryReadTool", with: {directory: "${state.dir}"}}
    """)
    (tmp_path / "marker.txt").write_text("x")
    flow = Flow.from_declaration(path=path, dir=str(tmp_path))
    assert "marker.txt" in str(flow.kickoff())


def test_contents_as_text_json_dict_or_definition(tmp_path: Path) -> None:
    data = {"schema": "crewai.flow/v1", "name": "c", "methods": {
        "a": {"start": True, "do": {"call": "expression", "expr": "'A'"}},
        "b": {"listen": "a", "do": {"call": "expression", "expr": "outputs.a + 'B'"}}}}
    for contents in (data, json.dumps(data), FlowDefinition.from_declaration(contents=data).to_yaml()):
        assert Flow.from_declaration(contents=contents).kickoff() == "AB"
    definition = FlowDefinition.from_declaration(contents=data)
    assert definition.to_dict()["schema"] == "crewai.flow/v1"
    assert Flow.from_declaration(contents=definition).kickoff() == "AB"
    with pytest.raises(ValueError, match="exactly one of contents"):
        FlowDefinition.from_declaration()


# ---------------------------------------------------------------------- Python flow -> definition
class Report(Flow[dict[str, Any]]):
    """Writes a report."""

    initial_state = {"topic": "tides"}

    @start()
    def begin(self) -> str:
        """First step."""
        return f"about {self.state['topic']}"

    @router(begin, emit=["long", "short"])
    def size(self) -> str:
        return "long" if len(self.state["topic"]) > 3 else "short"

    @listen("long")
    def write_long(self, value: Any = None) -> str:
        return f"a long report {value}"

    @listen("short")
    def write_short(self) -> str:
        return "a short report"


def test_flow_definition_of_a_python_flow_loads_back_and_runs_the_same() -> None:
    definition = Report.flow_definition()
    data = definition.to_dict()
    assert data["schema"] == "crewai.flow/v1" and data["name"] == "Report"
    assert data["methods"]["begin"] == {"description": "First step.", "start": True, "router": False,
                                        "do": {"call": "code", "ref": f"{__name__}:Report.begin"}}
    assert data["methods"]["size"]["router"] is True and data["methods"]["size"]["emit"] == ["long", "short"]
    assert data["state"] == {"type": "dict", "default": {"topic": "tides"}}
    again = Flow.from_declaration(contents=definition.to_yaml())
    assert again.kickoff() == Report().kickoff() == "a long report about tides"


def test_a_declared_flow_persists_and_records_its_file(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        name: kept
        state: {type: dict, default: {n: 1}}
        persist: {enabled: true, persistence: {ref: SQLiteFlowPersistence, db_path: "kept.db"}}
        methods:
          a:
            start: true
            do: {call: expression, expr: "state.n + 1"}
    """)
    flow = Flow.from_declaration(path=path)
    assert flow.kickoff() == 2
    from crewgraph.flow.persistence import SQLiteFlowPersistence

    store = SQLiteFlowPersistence(tmp_path / "kept.db")
    assert store.load_state(flow.flow_id)["n"] == 1
    run = store.load_run(flow.run_id)
    assert run is not None and run["flow"]["definition"] == str(path.resolve())
