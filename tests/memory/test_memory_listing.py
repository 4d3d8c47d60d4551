"""Memory parity with CrewAI: list_records covers a scope and its sub-scopes, newest first,
under recall's privacy rule (views included); a per-call root_scope replaces the memory's."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from memory_helpers import explicit

from crewgraph.memory import Memory
from crewgraph.testing import FakeLLM

MakeMemory = Callable[..., Memory]


def remember(m: Any, content: str, scope: str, **kw: Any) -> None:
    m.remember(content, **explicit(scope=scope, **kw))
    time.sleep(0.002)  # distinct creation times, so "newest first" is observable


def test_list_records_covers_subscopes_newest_first(make_memory: MakeMemory) -> None:
    m = make_memory(consolidation_threshold=1.0)
    remember(m, "alpha uses postgres", "/project/alpha")
    remember(m, "beta ships in May", "/project/beta")
    remember(m, "alpha api is rest", "/project/alpha/api")
    remember(m, "lunch is at noon", "/office")
    assert [r.content for r in m.list_records(scope="/project")] == [
        "alpha api is rest", "beta ships in May", "alpha uses postgres"
    ]
    assert [r.content for r in m.list_records(scope="/project/alpha")] == ["alpha api is rest", "alpha uses postgres"]
    assert [r.content for r in m.list_records(scope="/project", limit=1, offset=1)] == ["beta ships in May"]
    assert len(m.list_records()) == 4


def test_list_records_applies_recalls_privacy_rule(make_memory: MakeMemory) -> None:
    m = make_memory(consolidation_threshold=1.0)
    remember(m, "shared roadmap", "/team")
    remember(m, "alice salary note", "/team", source="user:alice", private=True)
    remember(m, "bob public note", "/team", source="user:bob")
    remember(m, "bob private note", "/team", source="user:bob", private=True)
    assert [r.content for r in m.list_records("/team")] == ["bob public note", "shared roadmap"]
    assert {r.content for r in m.list_records("/team", source="user:bob")} == {"bob public note", "bob private note"}
    assert len(m.list_records("/team", include_private=True)) == 4
    view = m.scope("/team")
    assert [r.content for r in view.list_records()] == ["bob public note", "shared roadmap"]
    assert "alice salary note" not in {r.content for r in view.list_records(source="user:bob")}
    sliced = m.slice(["/team"])
    assert [r.content for r in sliced.list_records()] == ["bob public note", "shared roadmap"]
    # the same rule as recall: the records recall can return are the ones listed
    listed = {r.id for r in m.list_records("/team", source="user:bob")}
    recalled = {x.record.id for x in m.recall("note", scope="/team", source="user:bob", depth="shallow")}
    assert recalled <= listed


def test_private_records_beyond_the_first_page_do_not_shorten_the_listing(make_memory: MakeMemory) -> None:
    m = make_memory(consolidation_threshold=1.0)
    m.remember_many([f"public fact {i}" for i in range(3)], **explicit(scope="/s"))
    m.remember_many([f"private fact {i}" for i in range(60)], **explicit(scope="/s", source="x", private=True))
    m.drain_writes()
    assert sorted(r.content for r in m.list_records("/s", limit=10)) == [f"public fact {i}" for i in range(3)]


def test_per_call_root_scope_replaces_the_memorys(make_memory: MakeMemory) -> None:
    m = make_memory(root_scope="/crew/research", consolidation_threshold=1.0)
    own = m.remember("kept under the crew", **explicit(scope="/notes"))
    other = m.remember("kept elsewhere", root_scope="/shared", **explicit(scope="/notes"))
    assert own is not None and own.scope == "/crew/research/notes"
    assert other is not None and other.scope == "/shared/notes"  # not /crew/research/shared/notes
    # views still write inside themselves
    scoped = m.scope("/agent/x").remember("the agent's", **explicit(scope="/n"))
    assert scoped is not None and scoped.scope == "/crew/research/agent/x/n"


def test_all_fields_given_is_no_analysis_call(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])
    m = make_memory(llm=llm)
    m.remember("The API rate limit is 1000 requests per minute.", scope="/project/api",
               categories=["limits"], importance=0.8)
    m.remember("Deploys happen on Fridays.", scope="/project/ops", categories=["process"], importance=0.4)
    assert llm.call_count == 0
