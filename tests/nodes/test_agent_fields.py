"""CrewAI's Agent fields doing what CrewAI documents, in real crews on FakeLLM (and the
local OpenAI-compatible server where the wire format matters): reasoning, inject_date,
max_tokens, allow_code_execution, multimodal input files."""

from __future__ import annotations

import base64
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.errors import CompileError
from crewgraph.events import (
    AgentReasoningCompletedEvent,
    AgentReasoningFailedEvent,
    crewgraph_event_bus,
)
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall, OpenAICompatServer
from crewgraph.tools import tool

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def crew_of(agent: Agent, **task_kw: Any) -> Crew:
    task = Task(description=task_kw.pop("description", "Analyse the market"), expected_output="A report",
                agent=agent, **task_kw)
    return Crew(agents=[agent], tasks=[task])


def analyst(llm: Any, **kw: Any) -> Agent:
    return Agent(role="Analyst", goal="Analyse markets", backstory="Careful", llm=llm, **kw)


# ---------------------------------------------------------------- inject_date / max_tokens
def test_inject_date_puts_todays_date_in_the_task_prompt() -> None:
    llm = FakeLLM(["report"])
    crew_of(analyst(llm, inject_date=True, date_format="%B %d, %Y")).kickoff()
    assert f"Current Date: {datetime.now().strftime('%B %d, %Y')}" in llm.calls[0].prompt
    plain = FakeLLM(["report"])
    crew_of(analyst(plain)).kickoff()
    assert "Current Date" not in plain.calls[0].prompt


@tool("Lookup")
def lookup(term: str) -> str:
    """Look a term up."""
    return f"{term} means growth"


def test_max_tokens_goes_with_every_call_of_the_agent() -> None:
    llm = FakeLLM([FakeToolCall("Lookup", {"term": "bull"}), "report"])
    crew_of(analyst(llm, max_tokens=64, tools=[lookup])).kickoff()
    assert [c.kwargs.get("max_tokens") for c in llm.calls] == [64, 64]
    free = FakeLLM(["report"])
    crew_of(analyst(free)).kickoff()
    assert "max_tokens" not in free.calls[0].kwargs


def test_max_tokens_reaches_the_server() -> None:
    with OpenAICompatServer(["report"]) as server:
        llm = LLM(model="test-model", base_url=server.base_url, api_key="k")
        crew_of(analyst(llm, max_tokens=77)).kickoff()
        assert server.chat_requests[0]["max_tokens"] == 77


# ---------------------------------------------------------------- reasoning
def test_reasoning_plans_in_its_own_node_until_ready() -> None:
    llm = FakeLLM([
        "1. Gather prices\nNOT READY: I do not know the period",
        "1. Gather prices for 2024\n2. Compare\nREADY: I am ready to execute the task.",
        "report",
    ])
    seen: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.register_handler(AgentReasoningCompletedEvent, lambda s, e: seen.append(e))
        crew = crew_of(analyst(llm, reasoning=True))
        graph = crew.compile()
        reasoning = [n for n, k in graph.graph.nodes(data="kind") if k == "reasoning"]
        assert reasoning == ["t1_analyse_the_market.reasoning"]
        assert graph.graph.has_edge(reasoning[0], "t1_analyse_the_market.agent")
        out = crew.kickoff()
    assert out.raw == "report"
    assert [(e.attempt, e.ready) for e in seen] == [(1, False), (2, True)]
    assert "Refine your plan" in llm.calls[1].prompt
    task_prompt = llm.calls[2].messages[1]["content"]
    assert "Reasoning Plan:\n1. Gather prices for 2024\n2. Compare" in task_prompt
    assert "READY" not in task_prompt
    assert out.token_usage.successful_requests == 3


def test_max_reasoning_attempts_bounds_the_refinement() -> None:
    llm = FakeLLM(["1. Guess\nNOT READY: unclear", "report"])
    out = crew_of(analyst(llm, reasoning=True, max_reasoning_attempts=1)).kickoff()
    assert out.raw == "report" and llm.call_count == 2
    assert "Reasoning Plan:\n1. Guess" in llm.calls[1].prompt


def test_unbounded_reasoning_is_still_bounded() -> None:
    from crewgraph.nodes.reasoning import UNBOUNDED_ATTEMPTS

    llm = FakeLLM(["NOT READY"] * UNBOUNDED_ATTEMPTS + ["report"])
    assert crew_of(analyst(llm, reasoning=True)).kickoff().raw == "report"
    assert llm.call_count == UNBOUNDED_ATTEMPTS + 1


def test_a_failed_reasoning_call_leaves_the_agent_working_without_a_plan() -> None:
    llm = FakeLLM([RuntimeError("model down"), "report"])
    failed: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.register_handler(AgentReasoningFailedEvent, lambda s, e: failed.append(e))
        out = crew_of(analyst(llm, reasoning=True)).kickoff()
    assert out.raw == "report"
    assert "model down" in failed[0].error
    assert "Reasoning Plan" not in llm.calls[1].prompt


# ---------------------------------------------------------------- allow_code_execution
def test_allow_code_execution_gives_the_agent_the_code_interpreter() -> None:
    def answer(request: FakeRequest) -> str:
        return "The result is " + str(request.messages[-1]["content"])

    llm = FakeLLM([FakeToolCall("Code_Interpreter", {"code": "print(6 * 7)"}), answer])
    out = crew_of(analyst(llm, allow_code_execution=True, code_execution_mode="unsafe")).kickoff()
    assert "Code_Interpreter" in llm.calls[0].tool_names
    assert "exit code: 0" in out.raw and "42" in out.raw
    plain = FakeLLM(["report"])
    crew_of(analyst(plain)).kickoff()
    assert plain.calls[0].tool_names == []


# ---------------------------------------------------------------- multimodal / input files
def test_a_multimodal_agent_sends_images_as_content_parts(tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(PNG)
    notes = tmp_path / "notes.md"
    notes.write_text("Q4 was strong.", encoding="utf-8")
    llm = FakeLLM(["trend: up"])
    crew_of(analyst(llm, multimodal=True), description="Describe the trend in {chart}",
            input_files={"chart": str(chart), "notes": str(notes)}).kickoff()
    content = llm.calls[0].messages[1]["content"]
    assert isinstance(content, list)
    text = content[0]["text"]
    assert "Describe the trend in the file 'chart' (chart.png)" in text
    assert "File 'notes' (notes.md):\nQ4 was strong." in text
    assert "File 'chart' (chart.png) is attached" in text
    assert content[1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()},
    }


def test_text_files_work_for_any_agent_and_binary_ones_need_multimodal(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("month,sales\njan,10\n", encoding="utf-8")
    llm = FakeLLM(["ok"])
    crew_of(analyst(llm), input_files={"data": str(data)}).kickoff()
    assert isinstance(llm.calls[0].messages[1]["content"], str)
    assert "month,sales\njan,10" in llm.calls[0].prompt
    chart = tmp_path / "chart.png"
    chart.write_bytes(PNG)
    with pytest.raises(CompileError, match=r"input file 'chart' .*is an image, and the agent is not multimodal"):
        crew_of(analyst(FakeLLM([])), input_files={"chart": str(chart)}).kickoff()
    with pytest.raises(CompileError, match=r"input file 'gone': .*does not exist"):
        crew_of(analyst(FakeLLM([])), input_files={"gone": str(tmp_path / "gone.png")}).compile()
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    with pytest.raises(CompileError, match="not a file crewgraph can send"):
        crew_of(analyst(FakeLLM([]), multimodal=True), input_files={"clip": str(video)}).compile()


def test_image_content_parts_reach_a_real_server(tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(PNG)
    with OpenAICompatServer(["up"]) as server:
        llm = LLM(model="test-model", base_url=server.base_url, api_key="k")
        out = crew_of(analyst(llm, multimodal=True), input_files={"chart": str(chart)}).kickoff()
        content = server.chat_requests[0]["messages"][1]["content"]
    assert out.raw == "up"
    assert [p["type"] for p in content] == ["text", "image_url"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_kickoff_input_files_reach_every_task_and_task_files_win(tmp_path: Path) -> None:
    crew_chart = tmp_path / "crew.png"
    crew_chart.write_bytes(PNG)
    notes = tmp_path / "notes.txt"
    notes.write_text("crew notes", encoding="utf-8")
    own = tmp_path / "own.txt"
    own.write_text("the task's own notes", encoding="utf-8")
    llm = FakeLLM(["one", "two"])
    a = analyst(llm, multimodal=True)
    tasks = [Task(description="Compare {chart} with {notes}", expected_output="x", agent=a),
             Task(description="Summarise {notes}", expected_output="y", agent=a, input_files={"notes": str(own)})]
    out = Crew(agents=[a], tasks=tasks).kickoff(inputs={}, input_files={"chart": str(crew_chart), "notes": str(notes)})
    assert out.raw == "two"
    first, second = (c.messages[1]["content"] for c in llm.calls)
    assert "Compare the file 'chart' (crew.png) with the file 'notes' (notes.txt)" in first[0]["text"]
    assert "crew notes" in first[0]["text"] and first[1]["type"] == "image_url"
    assert "the task's own notes" in second[0]["text"] and "crew notes" not in second[0]["text"]
    plain = analyst(FakeLLM([]))
    crew = Crew(agents=[plain], tasks=[Task(description="d", expected_output="e", agent=plain)])
    with pytest.raises(CompileError, match=r"task 'd': input file 'chart' .*not multimodal"):
        crew.kickoff(input_files={"chart": str(crew_chart)})
