"""Every event and message names a task and an agent as the run filled them in (issue 25, item 7):
``"research owls"`` by ``"owls analyst"``, never ``"research {topic}"`` by ``"{topic} analyst"``.
One crew touches every node kind that names them (reasoning, knowledge, memory recall and save,
the agent step, its tool call, the guardrail), and failures name them in their messages and in
``TaskFailedEvent``."""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events import crewgraph_event_bus
from crewgraph.events.base import BaseEvent
from crewgraph.knowledge import KnowledgeConfig, StringKnowledgeSource
from crewgraph.memory import Memory
from crewgraph.tasks.conditional_task import ConditionalTask
from crewgraph.testing import FakeEmbedder, FakeLLM, FakeToolCall
from crewgraph.tools import tool

NAMED = ("task_name", "agent_role", "label")


@tool("lookup")
def lookup(query: str) -> str:
    """Looks a subject up."""
    return f"facts about {query}"


def _embed(texts: list[str]) -> list[list[float]]:
    out = []
    for text in texts:
        vec = [0.0] * 32
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            d = hashlib.blake2b(word.encode(), digest_size=4).digest()
            vec[d[0] % 32] += 1.0 if d[1] % 2 else -1.0
        n = math.sqrt(sum(x * x for x in vec)) or 1.0
        out.append([x / n for x in vec])
    return out


def _events(run: Any) -> list[BaseEvent]:
    seen: list[BaseEvent] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(BaseEvent)(lambda source, event: seen.append(event))
        try:
            run()
        finally:
            crewgraph_event_bus.flush()
    return seen


def _raw_names(events: list[BaseEvent]) -> list[str]:
    return [f"{type(e).__name__}.{f}={getattr(e, f)!r}" for e in events for f in NAMED
            if "{topic}" in str(getattr(e, f, None) or "")]


def test_every_node_names_the_task_and_agent_filled_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.chdir(tmp_path)
    llm = FakeLLM(["1. look it up\nREADY: I am ready to execute the task.",
                   FakeToolCall("lookup", {"query": "owls"}), "Owls hunt at night."])
    memory = Memory(storage=str(tmp_path / "memory"), embedder=_embed, llm=FakeLLM(default='{"memories": []}'))
    analyst = Agent(role="{topic} analyst", goal="know {topic}", backstory="b", llm=llm, tools=[lookup],
                    reasoning=True, max_reasoning_attempts=1,
                    knowledge_sources=[StringKnowledgeSource(content="Owls are birds of prey.")],
                    knowledge_config=KnowledgeConfig(score_threshold=0.0),
                    embedder={"provider": "custom", "config": {"embedding_callable": FakeEmbedder(dimension=16)}})
    task = Task(name="research {topic}", description="Research {topic}", expected_output="facts", agent=analyst,
                guardrail=lambda out: (True, out))
    crew = Crew(agents=[analyst], tasks=[task], memory=memory)
    try:
        events = _events(lambda: crew.kickoff(inputs={"topic": "owls"}))
    finally:
        memory.close()
    kinds = {type(e).__name__ for e in events}
    for expected in ("AgentReasoningStartedEvent", "KnowledgeRetrievalStartedEvent", "MemoryRetrievalStartedEvent",
                     "ToolUsageStartedEvent", "ToolUsageFinishedEvent", "LLMGuardrailStartedEvent",
                     "AgentExecutionStartedEvent", "TaskStartedEvent", "NodeStartedEvent"):
        assert expected in kinds, (expected, sorted(kinds))
    assert _raw_names(events) == []
    tool_event = next(e for e in events if type(e).__name__ == "ToolUsageStartedEvent")
    assert (tool_event.agent_role, tool_event.task_name) == ("owls analyst", "research owls")
    assert analyst.last_tool_failures == []  # the agent found its task's output under the filled role


def test_failures_name_the_task_filled_in() -> None:
    def broken(previous: Any) -> bool:
        raise ValueError("no verdict")

    a = Agent(role="{topic} analyst", goal="g", backstory="b", llm=FakeLLM(default="text"))
    tasks = [Task(name="gather {topic}", description="d", expected_output="e", agent=a),
             ConditionalTask(name="check {topic}", description="d", expected_output="e", agent=a, condition=broken)]
    crew = Crew(agents=[a], tasks=tasks)
    errors: list[Exception] = []

    def run() -> None:
        try:
            crew.kickoff(inputs={"topic": "owls"})
        except Exception as exc:  # the message is what is checked
            errors.append(exc)

    events = _events(run)
    assert errors and "conditional task 'check owls' raised ValueError" in str(errors[0]), errors
    failed = [e for e in events if type(e).__name__ == "TaskFailedEvent"]
    assert [(e.task_name, e.agent_role) for e in failed] == [("check owls", "owls analyst")]
    assert _raw_names(events) == []
