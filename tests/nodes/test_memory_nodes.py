"""memory_recall / memory_save nodes: run on their own, with agent-level or crew memory."""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.events.memory_events import (
    MemoryRetrievalCompletedEvent,
    MemoryRetrievalStartedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.memory import Memory
from crewgraph.memory.analysis import ExtractedMemories
from crewgraph.nodes.memory_recall import MemoryRecallNode
from crewgraph.nodes.memory_save import MemorySaveNode
from crewgraph.outputs import TaskOutput
from crewgraph.testing import FakeLLM, run_node


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


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(storage=str(tmp_path / "m"), embedder=_embed, llm=FakeLLM([]))
    yield m
    m.close()


def _remember(m: Any, text: str, scope: str = "/") -> None:
    m.remember(text, scope=scope, categories=[], importance=0.5)


def test_recall_node_formats_memories_and_emits_events(memory: Memory) -> None:
    _remember(memory, "The deploy target is Kubernetes on GCP")
    _remember(memory, "Lunch is at noon")
    node = MemoryRecallNode(id="t.recall", task_name="deploy", query="Where do we {verb} the service?", limit=1)
    events: list[Any] = []
    ctx = NodeContext(inputs={"verb": "deploy"}, memory=memory, emit=events.append)
    result = asyncio.run(node.run(ctx))
    assert result.output == "- The deploy target is Kubernetes on GCP"
    assert [type(e) for e in events] == [MemoryRetrievalStartedEvent, MemoryRetrievalCompletedEvent]
    assert events[1].task_name == "deploy" and events[1].memory_content == result.output
    assert events[1].retrieval_time_ms >= 0
    assert memory.llm.call_count == 0  # shallow recall


def test_recall_node_prefers_agent_memory_and_handles_none(memory: Memory) -> None:
    _remember(memory, "private research note", scope="/agent/researcher")
    _remember(memory, "shared research note", scope="/shared")
    scoped = MemoryRecallNode(id="r", task_name="t", query="research note", memory=memory.scope("/agent/researcher"))
    out = asyncio.run(scoped.run(NodeContext(memory=memory))).output
    assert out == "- private research note"
    bare = MemoryRecallNode(id="r", task_name="t", query="anything")
    assert asyncio.run(bare.run(NodeContext())).output == ""
    # missing placeholders are left as written
    node = MemoryRecallNode(id="r", task_name="t", query="about {topic}")
    assert asyncio.run(node.run(NodeContext(memory=memory))).output.startswith("- ")


def test_recall_node_through_run_node(memory: Memory) -> None:
    _remember(memory, "The budget is 50k")
    node = MemoryRecallNode(id="t.recall", task_name="budget", query="What is the {what}?")
    result = run_node(node, inputs={"what": "budget"}, memory=memory)
    assert result.output == "- The budget is 50k"


def test_save_node_extracts_and_remembers_in_the_background(memory: Memory) -> None:
    memory.llm.add(ExtractedMemories(memories=["Budget is 50k", "Sarah leads the migration"]))
    output = TaskOutput(description="plan", raw="Notes: the budget is 50k and Sarah leads the migration.")
    node = MemorySaveNode(id="t.save", task_name="plan", agent_role="Planner", source_node="t.agent")
    result = asyncio.run(node.run(NodeContext(memory=memory, upstream={"t.agent": output})))
    assert result.output == ["Budget is 50k", "Sarah leads the migration"]
    matches = memory.recall("who leads the migration", depth="shallow", source="agent:Planner")
    assert {m.record.content for m in matches} == {"Budget is 50k", "Sarah leads the migration"}
    assert all(m.record.source == "agent:Planner" for m in matches)


def test_save_node_keeps_the_whole_text_when_extraction_fails(memory: Memory) -> None:
    memory.llm.add(RuntimeError("LLM down"))
    output = TaskOutput(description="d", raw="One important outcome.")
    node = MemorySaveNode(id="s", task_name="t", source_node="a")
    assert asyncio.run(node.run(NodeContext(memory=memory, upstream={"a": output}))).output == ["One important outcome."]
    memory.drain_writes()
    assert [r.content for r in memory.list_records()] == ["One important outcome."]


def test_save_node_with_views_and_without_memory(memory: Memory) -> None:
    memory.llm.add(ExtractedMemories(memories=["fact for alpha"]), ExtractedMemories(memories=["fact in scope"]))
    upstream = {"a": TaskOutput(description="d", raw="text")}
    rw = memory.slice(["/team/alpha", "/team/beta"], read_only=False)
    node = MemorySaveNode(id="s", task_name="t", source_node="a", memory=rw)
    assert asyncio.run(node.run(NodeContext(upstream=upstream))).output == ["fact for alpha"]
    scoped = MemorySaveNode(id="s", task_name="t", source_node="a", memory=memory.scope("/agent/w"))
    asyncio.run(scoped.run(NodeContext(upstream=upstream)))
    memory.drain_writes()
    assert sorted(r.scope for r in memory.list_records()) == ["/agent/w", "/team/alpha"]
    ro = MemorySaveNode(id="s", task_name="t", source_node="a", memory=memory.slice(["/x"]))
    assert asyncio.run(ro.run(NodeContext(upstream=upstream))).output == []
    none = MemorySaveNode(id="s", task_name="t", source_node="a")
    assert asyncio.run(none.run(NodeContext(upstream=upstream))).output == []
    empty = MemorySaveNode(id="s", task_name="t", source_node="missing")
    assert asyncio.run(empty.run(NodeContext(memory=memory))).output == []


def test_node_contract() -> None:
    recall = MemoryRecallNode(id="r", task_name="t", query="q")
    save = MemorySaveNode(id="s", task_name="t", source_node="a")
    assert (recall.kind, save.kind) == ("memory_recall", "memory_save")
    assert recall.limit == 5 and recall.memory is None and save.agent_role == ""
    assert recall.describe()["kind"] == "memory_recall" and save.describe()["source"] == "a"
    with pytest.raises(AttributeError):
        recall.limit = 3  # type: ignore[misc]


def test_next_tasks_recall_started_at_the_same_moment_sees_the_saved_facts(tmp_path: Path) -> None:
    llm = FakeLLM([ExtractedMemories(memories=["The release train leaves on Thursdays"])], latency=0.3)
    memory = Memory(storage=str(tmp_path / "m"), embedder=_embed, llm=llm)
    try:
        save = MemorySaveNode(id="t1.save", task_name="t1", agent_role="PM", source_node="t1.agent")
        recall = MemoryRecallNode(id="t2.recall", task_name="t2", query="When does the release train leave?")
        upstream = {"t1.agent": TaskOutput(description="d", raw="We ship with the Thursday release train.")}

        async def both() -> list[Any]:
            return await asyncio.gather(
                save.run(NodeContext(memory=memory, upstream=upstream)), recall.run(NodeContext(memory=memory))
            )

        saved, recalled = asyncio.run(both())
        assert saved.output == ["The release train leaves on Thursdays"]
        assert recalled.output == "- The release train leaves on Thursdays"
    finally:
        memory.close()
