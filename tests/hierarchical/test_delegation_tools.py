"""Delegation tools on their own and with ``allow_delegation=True`` in a sequential crew."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.errors import ConfigurationError
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import BaseTool, tool
from crewgraph.tools.delegation import (
    ASK_TOOL_NAME,
    DELEGATE_TOOL_NAME,
    DelegationTool,
    delegation_tools,
    normalize_role,
)

DELEGATE = "Delegate_work_to_coworker"


def test_two_tools_with_crewai_names_and_schema() -> None:
    lead = Agent(role="Lead", goal="g")
    others = [Agent(role="Researcher", goal="g"), Agent(role="Data  Analyst", goal="g")]
    tools = delegation_tools([lead, *others], delegator=lead)
    assert [t.name for t in tools] == [DELEGATE_TOOL_NAME, ASK_TOOL_NAME]
    assert all(isinstance(t, BaseTool) for t in tools)
    delegate, ask = tools
    assert "Researcher, Data  Analyst" in delegate.description
    assert set(delegate.to_spec().parameters["properties"]) == {"task", "context", "coworker"}
    assert set(ask.to_spec().parameters["properties"]) == {"question", "context", "coworker"}
    assert isinstance(delegate, DelegationTool)
    assert [c.role for c in delegate.coworkers] == ["Researcher", "Data  Analyst"]  # delegator left out


def test_coworker_is_validated_case_and_space_insensitively() -> None:
    lead = Agent(role="Lead", goal="g")
    (delegate, ask) = delegation_tools([Agent(role="Data  Analyst", goal="g")], delegator=lead)
    assert isinstance(delegate, DelegationTool) and isinstance(ask, DelegationTool)
    got = delegate.resolve({"task": "t", "context": "c", "coworker": " data analyst "})
    assert got.coworker.role == "Data  Analyst" and got.request == "t" and got.context == "c"
    assert ask.resolve({"question": "q?", "coworker": "DATA ANALYST"}).request == "q?"
    assert ask.resolve({"task": "q?", "coworker": "data analyst"}).request == "q?"  # alias
    with pytest.raises(ValidationError, match="valid coworkers are: Data  Analyst"):
        delegate.resolve({"task": "t", "coworker": "Nobody"})
    with pytest.raises(ValidationError, match="cannot delegate to yourself"):
        delegate.resolve({"task": "t", "coworker": "lead"})
    with pytest.raises(ValidationError, match="task"):
        delegate.resolve({"coworker": "Data Analyst"})
    assert normalize_role('  "Data\tAnalyst" ') == "data analyst"


def test_ambiguous_roles_are_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="share the role"):
        delegation_tools([Agent(role="Writer", goal="g"), Agent(role="writer ", goal="g")])
    assert delegation_tools([]) == []


def test_direct_call_runs_the_coworker() -> None:
    helper_llm = FakeLLM(["42"])
    (delegate, _) = delegation_tools([Agent(role="Helper", goal="Answer", llm=helper_llm)])
    assert delegate.run(task="What is six times seven?", context="math", coworker="helper") == "42"
    assert "What is six times seven?" in helper_llm.calls[0].prompt


def test_sequential_agent_with_allow_delegation_spawns_the_coworker_with_its_tools() -> None:
    calls: list[str] = []

    @tool("search")
    def search(q: str) -> str:
        """Search."""
        calls.append(q)
        return f"results for {q}"

    lead_llm = FakeLLM([FakeToolCall(DELEGATE, {"task": "look up owls", "context": "", "coworker": "researcher"}), "final"])
    researcher_llm = FakeLLM([FakeToolCall("search", {"q": "owls"}), "owls are birds"])
    lead = Agent(role="Lead", goal="g", llm=lead_llm, allow_delegation=True)
    researcher = Agent(role="Researcher", goal="g", llm=researcher_llm, tools=[search], allow_delegation=True)
    task = Task(name="write", description="Write", expected_output="x", agent=lead)
    out = Crew(agents=[lead, researcher], tasks=[task]).kickoff()
    assert out.raw == "final" and calls == ["owls"]
    child = "t1_write.agent.it1.0.delegate.researcher"
    g = out.graph
    assert g.record(child).parent == "t1_write.agent"
    assert g.record(f"{child}.it1.0.search").parent == child  # the coworker's own tool call, nested
    # The delegated step does not get delegation tools (no ping-pong).
    assert researcher_llm.calls[0].tool_names == ["search"]
    assert [t for t in lead_llm.calls[0].tool_names] == ["Delegate_work_to_coworker", "Ask_question_to_coworker"]
    assert next(m for m in lead_llm.calls[1].messages if m["role"] == "tool")["content"] == "owls are birds"


def test_agent_without_allow_delegation_has_no_delegation_tools() -> None:
    llm = FakeLLM(["done"])
    a = Agent(role="A", goal="g", llm=llm)
    b = Agent(role="B", goal="g", llm=llm)
    Crew(agents=[a, b], tasks=[Task(description="d", expected_output="x", agent=a)]).kickoff()
    assert llm.calls[0].tool_names == []
