"""Nothing silently skipped: the default threshold fits the default embedder, and a retrieval
that finds nothing, a tool that fails on every call or a recall over an empty memory is a
warning (node event, run summary, executed graph), never a plain success."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crewgraph import Agent, Crew, Task
from crewgraph.events import crewgraph_event_bus
from crewgraph.events.node_events import NodeFinishedEvent
from crewgraph.export.styles import STATUS_COLOURS
from crewgraph.knowledge import KnowledgeConfig, StringKnowledgeSource
from crewgraph.knowledge.knowledge_config import DEFAULT_EMBEDDER_SCORE_THRESHOLD
from crewgraph.testing import FakeEmbedder, FakeLLM, FakeToolCall
from crewgraph.tools import tool

POLICY = "Refunds are accepted within 30 days of purchase with a receipt."


def _crew(llm: Any, embedder: Any = None, **agent: Any) -> Crew:
    a = Agent(role="Support", goal="Answer customers", backstory="b", llm=llm, **agent)
    task = Task(name="answer", description="Can I get a refund?", expected_output="a short answer", agent=a)
    extra = {} if embedder is None else {"embedder": {"provider": "custom", "config": {"embedding_callable": embedder}}}
    return Crew(agents=[a], tasks=[task], knowledge_sources=[StringKnowledgeSource(content=POLICY)], **extra)


def _threshold(crew: Crew) -> float:
    return float(crew.compile().graph.nodes["t1_answer.knowledge"]["node"].score_threshold)


def test_the_default_threshold_fits_the_default_embedder(workdir: Path) -> None:
    assert DEFAULT_EMBEDDER_SCORE_THRESHOLD == 0.25
    assert _threshold(_crew(FakeLLM())) == 0.25  # the offline MiniLM embedder
    assert _threshold(_crew(FakeLLM(), FakeEmbedder())) == 0.35  # CrewAI's, for a configured embedder
    chosen = _crew(FakeLLM(), knowledge_config=KnowledgeConfig(score_threshold=0.35))
    assert _threshold(chosen) == 0.35  # a threshold the user set is kept


def _warnings(crew: Crew) -> tuple[list[str], Any]:
    seen: list[str] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(NodeFinishedEvent)(lambda source, e: seen.append(e.warning) if e.warning else None)
        out = crew.kickoff()
    return seen, out


def test_a_retrieval_that_finds_nothing_is_a_warning(workdir: Path) -> None:
    crew = _crew(FakeLLM(default="I do not know."), FakeEmbedder(), knowledge_config={"score_threshold": 0.99})
    seen, out = _warnings(crew)
    assert seen == ["no knowledge chunk scored 0.99 or more for this task: the prompt got none "
                    "(lower knowledge_config.score_threshold to include more)"]
    totals = out.graph.to_json()["totals"]
    assert totals["warnings"] == [{"node": "t1_answer.knowledge", "warning": seen[0]}]
    assert STATUS_COLOURS["warning"] in out.graph.to_dot() and "warning: no knowledge chunk" in out.graph.to_dot()


def test_a_tool_that_fails_on_every_call_is_a_warning(workdir: Path) -> None:
    @tool("lookup")
    def lookup(order: str) -> str:
        """Looks an order up."""
        raise RuntimeError("the order service is down")

    llm = FakeLLM([FakeToolCall("lookup", {"order": "1"}), FakeToolCall("lookup", {"order": "2"}), "sorry"])
    a = Agent(role="Support", goal="g", backstory="b", llm=llm, tools=[lookup])
    crew = Crew(agents=[a], tasks=[Task(name="t", description="Find order 1", expected_output="x", agent=a)])
    seen, out = _warnings(crew)
    assert seen == ["tool 'lookup' (2 calls) failed on every call; not grounded: the answer rests on no tool result"]
    assert out.tasks_output[0].grounded is False and out.tasks_output[0].warnings == seen
    assert [w["node"] for w in out.graph.to_json()["totals"]["warnings"]] == ["t1_t.agent"]


def test_a_recall_over_an_empty_memory_is_a_warning(workdir: Path) -> None:
    from crewgraph.memory import Memory

    a = Agent(role="Support", goal="g", backstory="b", llm=FakeLLM(default="ok"))
    memory = Memory(storage=str(workdir / "mem"), embedder=FakeEmbedder(), llm=FakeLLM(default="{}"))
    crew = Crew(agents=[a], tasks=[Task(name="t", description="Help", expected_output="x", agent=a)], memory=memory)
    seen, _ = _warnings(crew)
    assert "memory is empty: nothing to recall" in seen
