"""CrewAI's JSON-first projects (crew.jsonc + agents/*.jsonc) load into a Crew; every
mistake is one error naming the file, the line and the field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from crewgraph.errors import ConfigurationError
from crewgraph.project.json_project import find_crew_definition, load_json_crew
from crewgraph.testing import FakeLLM

RESEARCHER = """\
{
  // the researcher
  "role": "Senior Research Specialist for {topic}",
  "goal": "Find information about {topic}",
  "backstory": "You organise information.",
  "llm": "openai/gpt-4o-mini",
  "tools": ["FileReadTool"],
  "settings": {
    "verbose": false,
    "allow_delegation": false,
    "max_iter": 7,
  },
}
"""

ANALYST = '{"role": "Analyst", "goal": "Write about {topic}", "backstory": "Writer.", "max_rpm": 30}\n'

CREW = """\
{
  "name": "research_crew",
  "agents": ["researcher", "analyst"],
  "tasks": [
    {
      "name": "research_task",
      "description": "Research {topic}",
      "expected_output": "notes",
      "agent": "researcher"
    },
    {
      "name": "report_task",
      "description": "Write a report",
      "expected_output": "a report",
      "agent": "analyst",
      "context": ["research_task"],
      "output_file": "output/report.md"
    },
  ],
  "process": "sequential",
  "inputs": {"topic": "AI agents"},
}
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def project(tmp_path: Path, **changes: str) -> Path:
    files = {"crew.jsonc": CREW, "agents/researcher.jsonc": RESEARCHER, "agents/analyst.json": ANALYST}
    files.update({k.replace("__", "/").replace("_jsonc", ".jsonc").replace("_json", ".json"): v for k, v in changes.items()})
    return write(tmp_path / "research_crew", files)


def error_of(root: Path) -> str:
    with pytest.raises(ConfigurationError) as info:
        load_json_crew(root)
    return str(info.value)


def test_loads_agents_tasks_context_and_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    loaded = load_json_crew(root)
    crew = loaded.crew
    assert loaded.inputs == {"topic": "AI agents"}
    assert loaded.path == root / "crew.jsonc"
    assert crew.name == "research_crew"
    researcher, analyst = crew.agents
    assert researcher.role == "Senior Research Specialist for {topic}"
    assert researcher.max_iter == 7 and researcher.allow_delegation is False  # from settings
    assert [t.name for t in researcher.tools] == ["Read a file's content"]
    assert analyst.max_rpm == 30
    research, report = crew.tasks
    assert report.agent is analyst and report.context == [research]
    llm = FakeLLM(["- fact one", "# Report on fact one"])
    for agent in crew.agents:
        agent.llm = llm
    monkeypatch.chdir(root)
    result = crew.kickoff(inputs=loaded.inputs)
    assert result.raw == "# Report on fact one"
    assert "AI agents" in llm.calls[0].prompt
    assert "fact one" in llm.calls[1].prompt  # the research is the report's context
    assert (root / "output" / "report.md").read_text(encoding="utf-8") == result.raw


def test_jsonc_wins_over_json(tmp_path: Path) -> None:
    root = project(tmp_path, agents__analyst_jsonc='{"role": "From JSONC", "goal": "g", "backstory": "b"}')
    assert [a.role for a in load_json_crew(root).crew.agents][1] == "From JSONC"
    write(root, {"crew.json": "{}"})
    assert find_crew_definition(root) == root / "crew.jsonc"


def test_crew_json_without_c(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "crew.jsonc").rename(root / "crew.json")
    assert load_json_crew(root / "crew.json").crew.name == "research_crew"


def test_unknown_agent_in_a_task_names_line_and_suggests(tmp_path: Path) -> None:
    root = project(tmp_path, crew_jsonc=CREW.replace('"agent": "analyst"', '"agent": "analist"'))
    msg = error_of(root)
    assert "research_crew/crew.jsonc:15: task 'report_task', field 'agent': unknown agent 'analist'" in msg
    assert "did you mean 'analyst'?" in msg


def test_agent_file_not_listed_in_the_crew(tmp_path: Path) -> None:
    crew = CREW.replace('["researcher", "analyst"]', '["researcher"]')
    msg = error_of(project(tmp_path, crew_jsonc=crew))
    assert "field 'agent': unknown agent 'analyst'" in msg and "add it to the crew's \"agents\" list" in msg


def test_missing_agent_file(tmp_path: Path) -> None:
    crew = CREW.replace('["researcher", "analyst"]', '["researcher", "analyst", "writter"]')
    msg = error_of(project(tmp_path, crew_jsonc=crew))
    assert "crew.jsonc:3: crew, field 'agents': no agent 'writter'" in msg
    assert "writter.jsonc" in msg


def test_unknown_agent_field_with_suggestion(tmp_path: Path) -> None:
    msg = error_of(project(tmp_path, agents__researcher_jsonc=RESEARCHER.replace('"max_iter"', '"max_itr"')))
    assert "agents/researcher.jsonc:11: agent 'researcher', field 'max_itr': unknown agent field (did you mean 'max_iter'?)" in msg


def test_unsupported_crewai_field_says_so(tmp_path: Path) -> None:
    agent = RESEARCHER.replace('"verbose": false,', '"verbose": false,\n    "from_repository": "acme/researcher",')
    msg = error_of(project(tmp_path, agents__researcher_jsonc=agent))
    assert "agents/researcher.jsonc:10: agent 'researcher', field 'from_repository'" in msg
    assert "CrewAI field crewgraph does not support" in msg


def test_field_both_at_top_level_and_in_settings(tmp_path: Path) -> None:
    agent = RESEARCHER.replace('"max_iter": 7,', '"max_iter": 7,\n    "llm": "openai/gpt-4o",')
    msg = error_of(project(tmp_path, agents__researcher_jsonc=agent))
    assert "researcher.jsonc:12: agent 'researcher', field 'llm': set both at the top level and in settings" in msg


def test_unknown_tool_with_suggestion(tmp_path: Path) -> None:
    msg = error_of(project(tmp_path, agents__researcher_jsonc=RESEARCHER.replace("FileReadTool", "FileReedTool")))
    assert "researcher.jsonc:7: agent 'researcher', field 'tools': unknown tool 'FileReedTool'" in msg
    assert "did you mean 'FileReadTool'?" in msg


def test_tool_names_in_crewai_spellings(tmp_path: Path) -> None:
    agent = RESEARCHER.replace('["FileReadTool"]', '["file_read", "DirectoryRead", "crewai_tools:FileWriterTool"]')
    tools = load_json_crew(project(tmp_path, agents__researcher_jsonc=agent)).crew.agents[0].tools
    assert [type(t).__name__ for t in tools] == ["FileReadTool", "DirectoryReadTool", "FileWriterTool"]


def test_custom_tool_and_python_references(tmp_path: Path) -> None:
    tool = """\
        from crewgraph.tools import BaseTool

        class WordCountTool(BaseTool):
            name: str = "word_count"
            description: str = "Counts words."

            def _run(self, text: str) -> str:
                return str(len(text.split()))
    """
    code = """\
        from pydantic import BaseModel

        seen = []

        class Report(BaseModel):
            title: str

        def remember(output):
            seen.append(output.raw)

        def add_year(inputs):
            return {**inputs, "year": "2026"}
    """
    agent = RESEARCHER.replace('["FileReadTool"]', '["custom:word_count"]')
    crew = CREW.replace('"output_file": "output/report.md"', '"output_pydantic": {"python": "jc_hooks.Report"}')
    crew = crew.replace('"agent": "researcher"', '"agent": "researcher", "callback": {"python": "jc_hooks.remember"}')
    crew = crew.replace('"process"', '"before_kickoff_callbacks": [{"python": "jc_hooks.add_year"}],\n  "process"')
    root = project(tmp_path, agents__researcher_jsonc=agent, crew_jsonc=crew)
    write(root, {"tools/word_count.py": tool, "jc_hooks.py": code})
    loaded = load_json_crew(root)
    research, report = loaded.crew.tasks
    assert type(loaded.crew.agents[0].tools[0]).__name__ == "WordCountTool"
    assert report.output_pydantic.__name__ == "Report"
    assert research.callback.__module__ == "jc_hooks"
    assert loaded.crew.before_kickoff_callbacks[0]({"topic": "x"}) == {"topic": "x", "year": "2026"}


def test_python_reference_outside_the_project_is_refused(tmp_path: Path) -> None:
    crew = CREW.replace('"agent": "researcher"', '"agent": "researcher", "callback": {"python": "json.dumps"}')
    msg = error_of(project(tmp_path, crew_jsonc=crew))
    assert "crew.jsonc:9: task 'research_task', field 'callback': Python references must point to modules inside the project folder" in msg


def test_missing_custom_tool(tmp_path: Path) -> None:
    msg = error_of(project(tmp_path, agents__researcher_jsonc=RESEARCHER.replace('"FileReadTool"', '"custom:nope"')))
    assert "researcher.jsonc:7: agent 'researcher', field 'tools': custom tool 'custom:nope' not found: no tools/nope.py" in msg


def test_context_may_only_name_earlier_tasks(tmp_path: Path) -> None:
    crew = CREW.replace('"agent": "researcher"', '"agent": "researcher", "context": ["report_task"]')
    msg = error_of(project(tmp_path, crew_jsonc=crew))
    assert "crew.jsonc:9: task 'research_task', field 'context': task 'report_task' comes later in the list" in msg
    crew = CREW.replace('["research_task"]', '["reserch_task"]')
    msg = error_of(project(tmp_path / "b", crew_jsonc=crew))
    assert "crew.jsonc:16: task 'report_task', field 'context': unknown task 'reserch_task' (did you mean 'research_task'?)" in msg


def test_unknown_task_and_crew_fields(tmp_path: Path) -> None:
    crew = CREW.replace('"expected_output": "notes",', '"expected_output": "notes",\n      "descripton": "x",')
    msg = error_of(project(tmp_path, crew_jsonc=crew))
    assert "crew.jsonc:9: task 'research_task', field 'descripton': unknown task field (did you mean 'description'?)" in msg
    crew = CREW.replace('"process": "sequential",', '"proces": "sequential",')
    msg = error_of(project(tmp_path / "b", crew_jsonc=crew))
    assert "crew.jsonc:20: crew, field 'proces': unknown crew field (did you mean 'process'?)" in msg


def test_bad_value_is_reported_at_its_field(tmp_path: Path) -> None:
    msg = error_of(project(tmp_path, crew_jsonc=CREW.replace('"sequential"', '"sideways"')))
    assert msg.startswith("research_crew/crew.jsonc:20: crew, field 'process': invalid crew: process:"), msg
    msg = error_of(project(tmp_path / "b", agents__analyst_json=ANALYST.replace("30", '"lots"')))
    assert "agents/analyst.json:1: agent 'analyst', field 'max_rpm': invalid agent: max_rpm:" in msg


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    msg = error_of(project(tmp_path, agents__researcher_jsonc=RESEARCHER.replace('"goal"', '"goal" "')))
    assert msg.startswith("research_crew/agents/researcher.jsonc:4: invalid JSON:"), msg


def test_llm_object_form(tmp_path: Path) -> None:
    agent = RESEARCHER.replace('"openai/gpt-4o-mini"', '{"model": "llama3", "provider": "ollama", "base_url": "http://127.0.0.1:11434/v1"}')
    llm = load_json_crew(project(tmp_path, agents__researcher_jsonc=agent)).crew.agents[0].llm
    assert (llm.provider, llm.model, llm.base_url) == ("ollama", "llama3", "http://127.0.0.1:11434/v1")


def test_no_definition_in_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"no crew\.jsonc or crew\.json in this folder"):
        load_json_crew(tmp_path)
