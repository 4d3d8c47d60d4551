"""crewai.project's loader functions, as a CrewAI user calls them (load_crew, load_agent...)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from crewgraph.errors import ConfigurationError
from crewgraph.project import (
    load_agent,
    load_agent_from_definition,
    load_crew,
    load_crew_and_kickoff,
    strip_jsonc_comments,
)
from tests.project.test_json_project import ANALYST, RESEARCHER, project, write


def test_load_crew_returns_the_crew_and_its_inputs(tmp_path: Path) -> None:
    root = project(tmp_path)
    crew, inputs = load_crew(root / "crew.jsonc")
    assert inputs == {"topic": "AI agents"}
    assert [a.role for a in crew.agents] == ["Senior Research Specialist for {topic}", "Analyst"]
    assert [t.name for t in crew.tasks] == ["research_task", "report_task"]


def test_load_crew_reads_agents_from_agents_dir(tmp_path: Path) -> None:
    root = project(tmp_path)
    moved = tmp_path / "elsewhere"
    (root / "agents").rename(moved)
    with pytest.raises(ConfigurationError, match="no agent 'researcher'"):
        load_crew(root / "crew.jsonc")
    crew, _ = load_crew(root / "crew.jsonc", agents_dir=moved)
    assert crew.agents[1].max_rpm == 30


def test_load_crew_and_kickoff_merges_the_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)

    crew_file = root / "crew.jsonc"
    data = json.loads(strip_jsonc_comments(crew_file.read_text(encoding="utf-8")))
    for name in ("researcher", "analyst"):
        (root / "agents" / f"{name}.jsonc").unlink(missing_ok=True)
        (root / "agents" / f"{name}.json").unlink(missing_ok=True)
    write(root, {"agents/researcher.json": '{"role": "R", "goal": "g {topic}", "backstory": "b", "llm": {"python": "llms.FAKE"}}',
                 "agents/analyst.json": '{"role": "A", "goal": "g", "backstory": "b", "llm": {"python": "llms.FAKE"}}',
                 "llms.py": "from crewgraph.testing import FakeLLM\nFAKE = FakeLLM(['notes', 'the report'])\n"})
    del data["tasks"][1]["output_file"]
    crew_file.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    sys.modules.pop("llms", None)
    result = load_crew_and_kickoff(crew_file, input_overrides={"topic": "owls"})
    assert result.raw == "the report"
    fake = sys.modules["llms"].FAKE
    assert "owls" in fake.calls[0].prompt and "AI agents" not in fake.calls[0].prompt


def test_load_agent_from_its_file(tmp_path: Path) -> None:
    root = write(tmp_path / "p", {"agents/researcher.jsonc": RESEARCHER, "agents/analyst.json": ANALYST})
    agent = load_agent(root / "agents" / "researcher.jsonc")
    assert agent.role == "Senior Research Specialist for {topic}" and agent.max_iter == 7
    assert load_agent(str(root / "agents" / "analyst.json")).max_rpm == 30
    with pytest.raises(ConfigurationError, match="no such agent definition"):
        load_agent(root / "agents" / "nobody.json")


def test_load_agent_from_definition_with_response_format(tmp_path: Path) -> None:
    write(tmp_path, {"answer_models.py": "from pydantic import BaseModel\nclass Answer(BaseModel):\n    text: str\n"})
    agent, model = load_agent_from_definition(
        {"role": "Helper", "goal": "Help", "backstory": "Kind", "input": "hi", "response_format": {"python": "answer_models.Answer"},
         "settings": {"max_iter": 3}},
        project_root=tmp_path)
    assert agent.role == "Helper" and agent.max_iter == 3
    assert model is not None and model.__name__ == "Answer" and set(model.model_fields) == {"text"}
    agent, model = load_agent_from_definition({"role": "R", "goal": "g", "backstory": "b", "input": "x"})
    assert model is None


def test_strip_jsonc_comments_keeps_strings() -> None:
    text = '{\n  // a comment\n  "url": "http://x/*not a comment*/", /* block */\n  "list": [1, 2,],\n}'
    assert json.loads(strip_jsonc_comments(text)) == {"url": "http://x/*not a comment*/", "list": [1, 2]}
