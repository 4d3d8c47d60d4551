"""CrewAI's remaining Agent/Task/Crew fields at definition time: implemented ones validate,
unsupported ones are rejected naming themselves, and definitions dump to JSON."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.errors import ConfigurationError
from crewgraph.spec._unsupported import UNSUPPORTED
from crewgraph.testing import FakeLLM
from crewgraph.tools import tool


@tool("Adder")
def adder(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def agent(**kw: Any) -> Agent:
    return Agent(role="Analyst", goal="Analyse", backstory="Careful", **kw)


def test_implemented_agent_fields_have_crewais_defaults() -> None:
    a = agent()
    assert (a.reasoning, a.max_reasoning_attempts, a.inject_date, a.date_format) == (False, None, False, "%Y-%m-%d")
    assert (a.max_tokens, a.respect_context_window, a.allow_code_execution, a.multimodal) == (None, True, False, False)
    assert a.code_execution_mode == "safe"
    assert Task(description="d", expected_output="e").input_files == {}


@pytest.mark.parametrize(
    ("what", "kwargs", "field"),
    [
        ("Agent", {"prompt_template": "{{ .Prompt }}"}, "prompt_template"),
        ("Agent", {"use_system_prompt": False}, "use_system_prompt"),
        ("Agent", {"apps": ["gmail"]}, "apps"),
        ("Agent", {"callbacks": [print]}, "callbacks"),
        ("Task", {"converter_cls": object}, "converter_cls"),
        ("Crew", {"chat_llm": "gpt-4o"}, "chat_llm"),
        ("Crew", {"share_crew": True}, "share_crew"),
        ("Crew", {"prompt_file": "prompts.json"}, "prompt_file"),
    ],
)
def test_unsupported_crewai_fields_are_rejected_naming_them(what: str, kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        if what == "Agent":
            agent(**kwargs)
        elif what == "Task":
            Task(description="d", expected_output="e", **kwargs)
        else:
            a = agent()
            Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)], **kwargs)
    msg = str(info.value)
    assert f"{what}.{field} is a CrewAI field crewgraph does not support" in msg
    assert "docs/porting.md" in msg


def test_chat_llm_says_it_is_not_supported() -> None:
    a = agent()
    with pytest.raises(ValidationError, match=r"chat_llm .*crewgraph has no `crewai chat`"):
        Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)], chat_llm="gpt-4o-mini")


def test_unsupported_fields_left_at_crewais_default_ask_for_nothing() -> None:
    a = agent(use_system_prompt=True, prompt_template=None, apps=[], callbacks=[])
    t = Task(description="d", expected_output="e", agent=a, security_config=None, used_tools=0, converter_cls=None)
    Crew(agents=[a], tasks=[t], chat_llm=None, share_crew=False)


def test_every_unsupported_field_is_listed_in_the_porting_guide() -> None:
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "docs" / "porting.md").read_text(encoding="utf-8")
    for fields in UNSUPPORTED.values():
        for name in fields:
            assert f"`{name}`" in guide, name


def test_code_execution_needs_the_unsafe_mode_said_plainly() -> None:
    with pytest.raises(ValidationError, match=r"Docker sandbox.*code_execution_mode='unsafe'.*NOT a sandbox"):
        agent(allow_code_execution=True)
    assert agent(allow_code_execution=True, code_execution_mode="unsafe").allow_code_execution


def test_max_retries_is_crewais_deprecated_name_for_guardrail_max_retries() -> None:
    with pytest.warns(DeprecationWarning, match="guardrail_max_retries"):
        t = Task(description="d", expected_output="e", max_retries=5)
    assert t.guardrail_max_retries == 5


def test_task_tools_fall_back_to_the_agents() -> None:
    a = agent(tools=[adder])
    t = Task(description="d", expected_output="e", agent=a)
    assert t.tools == [adder]
    assert t.own_tools == []
    other = Task(description="d", expected_output="e", agent=a, tools=[])
    assert other.tools == [adder]  # an empty list is "not specified", as in CrewAI
    assert Task(description="d", expected_output="e").tools == []


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../outside.md", "path traversal"),
        ("reports/../../etc/passwd", "path traversal"),
        ("out.md; rm -rf ~", "shell metacharacters"),
        ("$(whoami).md", "shell metacharacters"),
        ("report.md | tee x", "shell metacharacters"),
        ("~/report.md", "shell metacharacters"),
        ("`id`.md", "shell metacharacters"),
    ],
)
def test_output_file_refuses_traversal_and_shell_metacharacters(path: str, why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        Task(description="d", expected_output="e", output_file=path)


def test_output_file_allows_plain_paths_and_checks_what_inputs_fill_in(tmp_path: Any) -> None:
    t = Task(description="d", expected_output="e", output_file="reports/{topic}..final.md")
    assert str(t.output_path({"topic": "ai"})) == "reports/ai..final.md"
    with pytest.raises(ConfigurationError, match=r"output_file 'reports/\.\./x\.\.final\.md' \(filled from the inputs\)"):
        t.output_path({"topic": "../x"})
    Task(description="d", expected_output="e", output_file=str(tmp_path / "abs" / "report.md"))


class Report(BaseModel):
    title: str


def test_model_dump_json_names_callables_with_a_warning() -> None:
    def check(output: Any) -> tuple[bool, Any]:
        return True, output

    a = agent(llm=FakeLLM(["x"]), step_callback=print, tools=[adder], max_tokens=100, reasoning=True)
    t = Task(description="d", expected_output="e", agent=a, guardrail=check, callback=print, output_pydantic=Report)
    with pytest.warns(UserWarning, match="not JSON data; the dump names it") as record:
        data = t.model_dump(mode="json")
    json.dumps(data)  # really JSON
    assert data["guardrail"].endswith("test_model_dump_json_names_callables_with_a_warning.<locals>.check")
    assert data["callback"] == "builtins:print"
    assert data["output_pydantic"].endswith(":Report")
    assert data["agent"]["llm"] == "FakeLLM(model='fake')"
    assert data["agent"]["step_callback"] == "builtins:print"
    assert data["tools"][0]["name"] == "Adder" and data["agent"]["max_tokens"] == 100
    assert len(record) >= 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        json.dumps(agent(llm="gpt-4o-mini").model_dump(mode="json"))  # plain data: no warning
    assert t.model_dump()["guardrail"] is check  # python mode keeps the objects


def test_input_files_are_named_paths() -> None:
    class ImageFile:  # crewai_files' shape: an object with a source
        def __init__(self, source: str) -> None:
            self.source = source

    t = Task(description="Look at {chart}", expected_output="e", input_files={"chart": ImageFile("c.png")})
    assert t.input_files == {"chart": "c.png"}
    assert "chart" not in t.placeholders()
    with pytest.raises(ValidationError, match="not a valid file name"):
        Task(description="d", expected_output="e", input_files={"my chart": "c.png"})
    with pytest.raises(ValidationError, match="must be a path or a URL"):
        Task(description="d", expected_output="e", input_files={"chart": 42})
