"""Record a whole crew run once, replay it offline: keyed by content, so concurrency cannot reorder it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Process, Task
from crewgraph.errors import LLMError, ReplayMismatchError
from crewgraph.llm import cassette
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse, ToolCall, ToolSpec
from crewgraph.nodes.planning import PlannerTaskPydanticOutput, PlanPerTask
from crewgraph.outputs import UsageMetrics
from crewgraph.runtime.cassette import CASSETTE_ENV, CassetteConfig
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


class EchoLLM(BaseLLM):
    """Answers from the prompt (so replies depend on context); per-task latency reorders calls."""

    def __init__(self, model: str = "echo", slow: str = "") -> None:
        self.model = model
        self.slow = slow
        self.calls = 0

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: Any = None,
        **kwargs: Any,
    ) -> LLMResponse:
        self.calls += 1
        task = messages[1]["content"].split("Current Task: ", 1)[1].split("\n", 1)[0]
        await asyncio.sleep(0.05 if self.slow and self.slow in task else 0.0)
        usage = UsageMetrics(total_tokens=3, prompt_tokens=2, completion_tokens=1, successful_requests=1)
        if tools and not any(m["role"] == "tool" for m in messages):
            return LLMResponse(tool_calls=[ToolCall(id=f"c-{task}", name="note", arguments=json.dumps({"text": task}))], usage=usage)
        return LLMResponse(content=f"{self.model} did {task} after {len(messages)} messages", usage=usage)


class Offline(BaseLLM):
    """Fails the test if a replayed run reaches a real model."""

    model = "echo"

    async def acall(self, messages: Any, **kwargs: Any) -> LLMResponse:
        raise AssertionError("a replayed run called the model")


@tool("note")
def note(text: str) -> str:
    """Take a note."""
    return f"noted {text}"


def _crew(llm: BaseLLM, **kw: Any) -> Crew:
    agent = Agent(role="Analyst", goal="Analyse", llm=llm, tools=[note], max_retry_limit=0)
    tasks = [
        Task(name="alpha", description="alpha work", expected_output="x", agent=agent, async_execution=True),
        Task(name="beta", description="beta work", expected_output="x", agent=agent, async_execution=True),
        Task(name="gamma", description="gamma work", expected_output="x", agent=agent),
    ]
    return Crew(agents=[agent], tasks=tasks, **kw)


def test_replay_is_keyed_by_content_not_call_order(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    recorded = _crew(EchoLLM(slow="alpha"), cassette=tape).kickoff()
    lines = [json.loads(x) for x in tape.read_text().splitlines()]
    assert len(lines) == 6 and all(line["model"] == "echo" for line in lines)
    # Replay with the *other* task slow: calls now arrive in a different order.
    replayed = _crew(EchoLLM(slow="beta"), cassette=CassetteConfig(path=tape, mode="replay"))
    slow_beta = replayed.agents[0].llm
    out = replayed.kickoff()
    assert out.raw == recorded.raw
    assert [t.raw for t in out.tasks_output] == [t.raw for t in recorded.tasks_output]
    assert slow_beta.calls == 0  # never reached the model


def test_order_only_replay_breaks_where_keyed_replay_does_not(tmp_path: Path) -> None:
    tape = tmp_path / "plain.jsonl"
    _crew(cassette(tape, EchoLLM(slow="alpha"), mode="record")).kickoff()
    with pytest.raises(ReplayMismatchError):
        _crew(_Slowed(cassette(tape, mode="replay"), "beta")).kickoff()


class _Slowed(BaseLLM):
    """Delays calls of one task in front of another model (to reorder a replay)."""

    def __init__(self, inner: BaseLLM, slow: str) -> None:
        self.inner, self.slow, self.model = inner, slow, inner.model

    async def acall(self, messages: Any, **kwargs: Any) -> LLMResponse:
        if self.slow in messages[1]["content"]:
            await asyncio.sleep(0.05)
        return await self.inner.acall(messages, **kwargs)


def test_changed_prompt_fails_with_a_diff(tmp_path: Path) -> None:
    tape = tmp_path / "run.jsonl"
    _crew(EchoLLM(), cassette=tape).kickoff()
    changed = _crew(Offline(), cassette=tape)
    changed.tasks[2].description = "gamma work, but shorter"
    with pytest.raises(ReplayMismatchError) as info:
        changed.kickoff()
    text = str(info.value)
    assert "no recording" in text and "closest recording" in text
    assert "-" in text and "gamma work, but shorter" in text and "+" in text


def test_env_var_records_then_replays_any_crew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tape = tmp_path / "env.jsonl"
    monkeypatch.setenv(CASSETTE_ENV, str(tape))
    first = _crew(EchoLLM()).kickoff()
    assert tape.exists()
    assert _crew(Offline()).kickoff().raw == first.raw


def test_every_model_of_a_hierarchical_planned_crew_is_taped(tmp_path: Path) -> None:
    tape = tmp_path / "h.jsonl"

    def build(manager: BaseLLM, worker: BaseLLM, planner: BaseLLM) -> Crew:
        researcher = Agent(role="Researcher", goal="g", llm=worker)
        return Crew(
            agents=[researcher],
            tasks=[Task(description="Research owls", expected_output="x")],
            process=Process.hierarchical,
            manager_llm=manager,
            planning=True,
            planning_llm=planner,
            cassette=tape,
        )

    plan = PlannerTaskPydanticOutput(list_of_plans_per_task=[PlanPerTask(task_number=1, task="t", plan="ask")])
    recorded = build(
        FakeLLM([FakeToolCall("Delegate_work_to_coworker", {"task": "t", "coworker": "Researcher"}), "done"], model="boss"),
        FakeLLM(["facts"], model="worker"),
        FakeLLM([plan], model="planner"),
    ).kickoff()
    models = sorted(json.loads(x)["model"] for x in tape.read_text().splitlines())
    assert models == ["boss", "boss", "planner", "worker"]
    offline = [FakeLLM([], model=name) for name in ("boss", "worker", "planner")]
    out = build(*offline).kickoff()
    assert out.raw == recorded.raw == "done"
    assert all(llm.calls == [] for llm in offline)


def test_recorded_errors_replay(tmp_path: Path) -> None:
    tape = tmp_path / "err.jsonl"
    agent = Agent(role="A", goal="g", llm=FakeLLM([LLMError("quota exceeded", status_code=402)]), max_retry_limit=0)
    crew = Crew(agents=[agent], tasks=[Task(description="d", expected_output="x", agent=agent)], cassette=tape)
    with pytest.raises(LLMError, match="quota exceeded"):
        crew.kickoff()
    agent.llm = Offline()
    with pytest.raises(ReplayMismatchError, match="recorded this request for model 'fake'"):
        crew.kickoff()
    agent.llm = FakeLLM([])  # same model name, never called
    with pytest.raises(LLMError, match="quota exceeded"):
        crew.kickoff()


def test_crew_llm_can_be_a_recording_from_the_llm_package(tmp_path: Path) -> None:
    tape = tmp_path / "seq.jsonl"
    agent = Agent(role="A", goal="g")
    tasks = [Task(description="one", expected_output="x", agent=agent), Task(description="two", expected_output="x", agent=agent)]
    first = Crew(agents=[agent], tasks=tasks, llm=cassette(tape, FakeLLM(["1", "2"]))).kickoff()
    again = Crew(agents=[agent], tasks=tasks, llm=cassette(tape)).kickoff()
    assert again.raw == first.raw == "2"


def test_cassette_false_opts_out_of_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CASSETTE_ENV, str(tmp_path / "tape.jsonl"))
    assert CassetteConfig.coerce(None) is not None
    assert CassetteConfig.coerce(False) is None


def test_function_calling_llm_is_taped_too(tmp_path: Path) -> None:
    """An agent's function_calling_llm makes its tool turns: those calls are recorded and
    replayed like the others (before, they bypassed the tape and went live on replay)."""
    tape = tmp_path / "fc.jsonl"

    def crew(main: FakeLLM, turns: FakeLLM) -> Crew:
        agent = Agent(role="A", goal="g", llm=main, function_calling_llm=turns, tools=[note], max_retry_limit=0)
        return Crew(agents=[agent], tasks=[Task(description="d", expected_output="x", agent=agent)], cassette=tape)

    turns = FakeLLM([FakeToolCall("note", {"text": "x"}), "done with the note"], model="tool-model")
    recorded = crew(FakeLLM([], model="main"), turns).kickoff()
    assert recorded.raw == "done with the note" and len(turns.calls) == 2
    assert [json.loads(line)["model"] for line in tape.read_text().splitlines()] == ["tool-model", "tool-model"]
    offline_main, offline_turns = FakeLLM([], model="main"), FakeLLM([], model="tool-model")
    assert crew(offline_main, offline_turns).kickoff().raw == "done with the note"
    assert offline_main.calls == [] and offline_turns.calls == []
