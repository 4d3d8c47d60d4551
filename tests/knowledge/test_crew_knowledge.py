"""Knowledge in crews: a knowledge_retrieval node per task, its text in the prompt, events, resets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Process, Task
from crewgraph.events import (
    KnowledgeQueryCompletedEvent,
    KnowledgeQueryStartedEvent,
    KnowledgeRetrievalCompletedEvent,
    KnowledgeRetrievalStartedEvent,
    crewgraph_event_bus,
)
from crewgraph.knowledge import KnowledgeConfig, StringKnowledgeSource, TextFileKnowledgeSource
from crewgraph.testing import FakeEmbedder, FakeLLM

POLICY = "Refunds are accepted within 30 days of purchase with a receipt."
OTHER = "The warehouse in Porto ships orders on weekdays only."


def _embedder_config(embedder: FakeEmbedder) -> dict[str, Any]:
    return {"provider": "custom", "config": {"embedding_callable": embedder}}


def _crew(llm: FakeLLM, embedder: FakeEmbedder, **agent: Any) -> Crew:
    support = Agent(role="Support", goal="Answer customers", llm=llm, **agent)
    task = Task(name="answer", description="Can I get refunds after 20 days of purchase?",
                expected_output="a short answer", agent=support)
    return Crew(
        agents=[support],
        tasks=[task],
        knowledge_sources=[StringKnowledgeSource(content=POLICY), StringKnowledgeSource(content=OTHER)],
        embedder=_embedder_config(embedder),
    )


def test_plan_has_a_knowledge_node_before_the_step(workdir: Path, embedder: FakeEmbedder) -> None:
    graph = _crew(FakeLLM(), embedder).compile()
    assert graph.graph.nodes["t1_answer.knowledge"]["kind"] == "knowledge_retrieval"
    assert graph.graph.edges["t1_answer.knowledge", "t1_answer.agent"]["kind"] == "knowledge"
    assert embedder.calls == []  # compiling indexes nothing


def test_retrieved_knowledge_goes_into_the_prompt_with_events(workdir: Path, embedder: FakeEmbedder) -> None:
    seen: list[Any] = []
    llm = FakeLLM(["Yes, within 30 days."])
    crew = _crew(llm, embedder, knowledge_config=KnowledgeConfig(results_limit=1, score_threshold=0.1))
    kinds = (KnowledgeRetrievalStartedEvent, KnowledgeQueryStartedEvent, KnowledgeQueryCompletedEvent,
             KnowledgeRetrievalCompletedEvent)
    with crewgraph_event_bus.scoped_handlers():
        for kind in kinds:
            crewgraph_event_bus.on(kind)(lambda source, event: seen.append(event))
        assert crew.kickoff().raw == "Yes, within 30 days."
    prompt = llm.calls[0].messages[1]["content"]
    assert f"Additional Information: {POLICY}" in prompt
    assert OTHER not in prompt  # results_limit=1
    assert [type(e) for e in seen] == list(kinds)
    assert seen[-1].retrieved_knowledge == f"Additional Information: {POLICY}"
    assert seen[0].task_name == "answer" and seen[0].agent_role == "Support"


def test_nothing_above_the_threshold_adds_nothing(workdir: Path, embedder: FakeEmbedder) -> None:
    llm = FakeLLM(["I do not know."])
    crew = _crew(llm, embedder, knowledge_config={"score_threshold": 0.99})
    crew.kickoff()
    assert "Additional Information" not in llm.calls[0].messages[1]["content"]


def test_second_run_embeds_only_the_query(workdir: Path, embedder: FakeEmbedder) -> None:
    crew = _crew(FakeLLM(default="ok"), embedder)
    crew.kickoff()
    first = embedder.texts_embedded
    crew.kickoff()
    assert embedder.texts_embedded == first + 1  # the task's query, no chunk again


def test_agent_knowledge_and_crew_knowledge_both_count(workdir: Path, embedder: FakeEmbedder) -> None:
    (workdir / "knowledge" / "faq.txt").write_text("Gift cards never expire.")
    llm = FakeLLM(["ok"])
    crew = _crew(llm, embedder, knowledge_sources=[TextFileKnowledgeSource(file_paths=["faq.txt"])],
                 knowledge_config=KnowledgeConfig(results_limit=1, score_threshold=-1.0))
    crew.kickoff()
    prompt = llm.calls[0].messages[1]["content"]
    assert "Gift cards never expire." in prompt and POLICY in prompt


def test_query_knowledge_and_reset(workdir: Path, embedder: FakeEmbedder) -> None:
    crew = _crew(FakeLLM(), embedder)
    [hit] = crew.query_knowledge(["refunds receipt purchase"], results_limit=1, score_threshold=0.0) or []
    assert hit["content"] == POLICY
    crew.reset_memories(command_type="knowledge")
    assert crew.query_knowledge(["refunds receipt purchase"], results_limit=1, score_threshold=0.0)
    with pytest.raises(ValueError, match="no agent of this crew has knowledge"):
        crew.reset_memories(command_type="agent_knowledge")
    bare = Crew(agents=[crew.agents[0]], tasks=list(crew.tasks))
    assert bare.query_knowledge(["x"]) is None
    with pytest.raises(ValueError, match="no knowledge to reset"):
        bare.reset_memories(command_type="knowledge")


def test_hierarchical_manager_gets_crew_knowledge(workdir: Path, embedder: FakeEmbedder) -> None:
    worker = Agent(role="Clerk", goal="Work", llm=FakeLLM(default="done"))
    task = Task(name="answer", description="Refunds after 20 days?", expected_output="answer")
    crew = Crew(agents=[worker], tasks=[task], process=Process.hierarchical, manager_llm=FakeLLM(),
                knowledge_sources=[StringKnowledgeSource(content=POLICY)], embedder=_embedder_config(embedder))
    graph = crew.compile()
    assert graph.graph.edges["t1_answer.knowledge", "t1_answer.manager"]["kind"] == "knowledge"


def test_bad_sources_are_rejected_where_they_are_given() -> None:
    with pytest.raises(ValueError, match=r"knowledge_sources\[0\] is a str"):
        Agent(role="r", goal="g", knowledge_sources=["text"])
    with pytest.raises(ValueError, match="knowledge_sources"):
        Crew(knowledge_sources=[42])
