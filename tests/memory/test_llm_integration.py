"""Memory's LLM calls through the real client (openai SDK + instructor) against the local
OpenAI-compatible test server: structured analysis works, and a server error degrades."""

from __future__ import annotations

from collections.abc import Callable

from memory_helpers import explicit

from crewgraph.llm import LLM
from crewgraph.memory import Memory
from crewgraph.testing import OpenAICompatServer, ServerReply

MakeMemory = Callable[..., Memory]


def _llm(server: OpenAICompatServer) -> LLM:
    return LLM(model="local-model", base_url=server.base_url, api_key="k", max_retries=0, retry_initial_delay=0.01)


def test_save_analysis_over_http(openai_server: OpenAICompatServer, make_memory: MakeMemory) -> None:
    openai_server.add(
        ServerReply.structured(
            {
                "suggested_scope": "/project/decisions",
                "categories": ["database"],
                "importance": 0.9,
                "extracted_metadata": {"entities": ["PostgreSQL"], "dates": [], "topics": []},
            }
        ),
        ServerReply.structured({"memories": ["Budget is 50k", "Sarah leads"]}),
    )
    m = make_memory(llm=_llm(openai_server))
    record = m.remember("We chose PostgreSQL.")
    assert record is not None and record.scope == "/project/decisions" and record.importance == 0.9
    assert record.metadata["entities"] == ["PostgreSQL"]
    assert m.extract_memories("Budget 50k. Sarah leads.") == ["Budget is 50k", "Sarah leads"]


def test_server_errors_degrade(openai_server: OpenAICompatServer, make_memory: MakeMemory) -> None:
    openai_server.add(ServerReply.error(500, "boom"), ServerReply.error(400, "bad request"))
    m = make_memory(llm=_llm(openai_server))
    record = m.remember("An error must not lose this.")
    assert record is not None and (record.scope, record.importance) == ("/", 0.5)
    assert m.extract_memories("Keep me whole.") == ["Keep me whole."]
    assert m.recall("lose this", depth="shallow")[0].record.id == record.id
    m.remember("explicit", **explicit())
