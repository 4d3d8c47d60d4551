"""Every mistake in agents.yaml/tasks.yaml fails at construction with file, line and key."""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType

import pytest
from _project_files import AGENTS, TASKS

from crewgraph.errors import ConfigurationError

MakeProject = Callable[..., ModuleType]


def error_of(make_project: MakeProject, **files: str) -> str:
    mod = make_project(**files)
    with pytest.raises(ConfigurationError) as info:
        mod.ResearchCrew().crew()
    return str(info.value)


def test_unknown_agent_in_a_task(make_project: MakeProject) -> None:
    msg = error_of(make_project, tasks=TASKS.replace("agent: writer", "agent: editor"))
    assert re.search(r"config/tasks\.yaml:8: task 'write_task', key 'agent': unknown agent 'editor'", msg), msg
    assert "known: researcher, writer" in msg


def test_unknown_tool_points_at_the_list_item(make_project: MakeProject) -> None:
    agents = AGENTS.replace("tools: [search]", "tools:\n    - search\n    - serch")
    msg = error_of(make_project, agents=agents)
    assert "config/agents.yaml:7: agent 'researcher', key 'tools': unknown tool 'serch'" in msg
    assert "did you mean 'search'?" in msg


def test_unknown_context_task(make_project: MakeProject) -> None:
    msg = error_of(make_project, tasks=TASKS.replace("context: [research_task]", "context: [reserch_task]"))
    assert "config/tasks.yaml:9: task 'write_task', key 'context': unknown task 'reserch_task'" in msg


def test_context_cycle(make_project: MakeProject) -> None:
    tasks = TASKS.replace("  agent: researcher\n", "  agent: researcher\n  context: [write_task]\n")
    msg = error_of(make_project, tasks=tasks)
    assert "context cycle" in msg and "research_task -> write_task -> research_task" in msg


def test_yaml_syntax_error_has_the_line(make_project: MakeProject) -> None:
    msg = error_of(make_project, agents=AGENTS.replace("  goal: Write clearly", "  goal: [Write clearly"))
    assert re.match(r"proj_0/config/agents\.yaml:\d+: invalid YAML", msg), msg


def test_unknown_field_is_a_typo_with_a_suggestion(make_project: MakeProject) -> None:
    msg = error_of(make_project, agents=AGENTS.replace("  backstory: Plain words.", "  backstroy: Plain words."))
    assert "config/agents.yaml:9: agent 'writer', key 'backstroy': unknown agent field (did you mean 'backstory'?)" in msg


def test_invalid_value_reports_the_entry_line(make_project: MakeProject) -> None:
    msg = error_of(make_project, agents=AGENTS.replace("  goal: Write clearly about {topic}\n", ""))
    assert "config/agents.yaml:6: agent 'writer', key 'goal'" not in msg  # the key is missing: the entry line
    assert "config/agents.yaml:6: agent 'writer': invalid agent: goal: Field required" in msg


def test_duplicate_and_shape_errors(make_project: MakeProject) -> None:
    msg = error_of(make_project, agents=AGENTS + "writer:\n  role: again\n  goal: g\n")
    assert "config/agents.yaml:10: duplicate key 'writer'" in msg
    msg = error_of(make_project, tasks="- just\n- a list\n")
    assert "config/tasks.yaml: a tasks config must map task names" in msg
    msg = error_of(make_project, tasks=TASKS + "empty_task:\n")
    assert "config/tasks.yaml:10: task 'empty_task': expected a mapping of fields" in msg


def test_missing_entry_names_the_file(make_project: MakeProject) -> None:
    msg = error_of(make_project, tasks=TASKS.replace("write_task:", "writing_task:"))
    assert "no task 'write_task' in proj_0/config/tasks.yaml (known: research_task, writing_task)" in msg
    mod = make_project(tasks=None)
    with pytest.raises(ConfigurationError, match=r"tasks config .*tasks\.yaml does not exist"):
        mod.ResearchCrew().crew()


def test_crewai_fields_work_or_are_rejected_at_their_line(make_project: MakeProject) -> None:
    # Implemented CrewAI fields are taken; unsupported ones left at CrewAI's default are dropped.
    agents = AGENTS + "  reasoning: true\n  inject_date: true\n  use_system_prompt: true\n  apps: []\n"
    tasks = TASKS + "  max_retries: 5\n"
    proj = make_project(agents=agents, tasks=tasks).ResearchCrew()
    c = proj.crew()
    assert c.tasks[1].guardrail_max_retries == 5  # CrewAI's old name is mapped
    assert c.tasks[1].agent is not None and c.tasks[1].agent.reasoning and c.tasks[1].agent.inject_date
    # An unsupported field that asks for something is an error naming it, at its line.
    msg = error_of(make_project, agents=AGENTS + "  prompt_template: '{{ .Prompt }}'\n")
    assert "agents.yaml:10: agent 'writer', key 'prompt_template'" in msg
    assert "Agent.prompt_template is a CrewAI field crewgraph does not support" in msg
    msg = error_of(make_project, agents=AGENTS + "  allow_code_execution: true\n")
    assert "agents.yaml:6: agent 'writer'" in msg and "code_execution_mode='unsafe'" in msg
