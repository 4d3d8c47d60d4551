"""``knowledge=Knowledge(...)`` on an Agent and a Crew, ``Crew.reset_knowledge`` and
``Crew.query_knowledge``/``aquery_knowledge``, as CrewAI users write them."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.knowledge import Knowledge, KnowledgeConfig, StringKnowledgeSource
from crewgraph.testing import FakeEmbedder, FakeLLM

POLICY = "Refunds are accepted within 30 days of purchase with a receipt."


def _embedder(embedder: FakeEmbedder) -> dict[str, Any]:
    return {"provider": "custom", "config": {"embedding_callable": embedder}}


def test_a_crews_knowledge_object_reaches_the_prompt_and_is_queried(workdir: Path, embedder: FakeEmbedder) -> None:
    knowledge = Knowledge(collection_name="policies", sources=[StringKnowledgeSource(content=POLICY)],
                          embedder=_embedder(embedder))
    llm = FakeLLM(["Yes."])
    agent = Agent(role="Support", goal="help", backstory="b", llm=llm,
                  knowledge_config=KnowledgeConfig(results_limit=1, score_threshold=0.0))
    crew = Crew(agents=[agent], tasks=[Task(description="Refunds after 20 days?", expected_output="answer",
                                            agent=agent)], knowledge=knowledge)
    assert crew.kickoff().raw == "Yes."
    assert POLICY in llm.calls[0].messages[1]["content"]
    found = crew.query_knowledge(["refund receipt"], results_limit=1, score_threshold=0.0)
    assert found and POLICY in found[0]["content"]
    again = asyncio.run(crew.aquery_knowledge(["refund receipt"], results_limit=1, score_threshold=0.0))
    assert again == found
    crew.reset_knowledge([knowledge])
    assert crew.query_knowledge(["refund"], score_threshold=0.0)  # sources are indexed again on use
    with pytest.raises(TypeError, match=r"knowledges\[0\]"):
        crew.reset_knowledge(["not knowledge"])


def test_an_agents_knowledge_object_is_its_own(workdir: Path, embedder: FakeEmbedder) -> None:
    knowledge = Knowledge(collection_name="support_only", sources=[StringKnowledgeSource(content=POLICY)],
                          embedder=_embedder(embedder))
    llm = FakeLLM(["Noted."])
    agent = Agent(role="Support", goal="help", backstory="b", llm=llm, knowledge=knowledge,
                  knowledge_config=KnowledgeConfig(results_limit=1, score_threshold=0.0))
    crew = Crew(agents=[agent], tasks=[Task(description="Refunds?", expected_output="answer", agent=agent)])
    assert crew.kickoff().raw == "Noted."
    assert POLICY in llm.calls[0].messages[1]["content"]
    assert crew.query_knowledge(["refund"]) is None  # the crew itself has none


def test_knowledge_and_knowledge_sources_together_are_refused(workdir: Path, embedder: FakeEmbedder) -> None:
    knowledge = Knowledge(collection_name="k", sources=[], embedder=_embedder(embedder))
    with pytest.raises(ValidationError, match="not both"):
        Agent(role="A", goal="g", knowledge=knowledge, knowledge_sources=[StringKnowledgeSource(content="x")])
    with pytest.raises(ValidationError, match="must be a Knowledge object"):
        Agent(role="A", goal="g", knowledge="facts")
