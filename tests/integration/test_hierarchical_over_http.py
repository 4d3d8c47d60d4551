"""A planned hierarchical crew on the real openai SDK + instructor against the local server,
recorded to a cassette and replayed with the server gone.

FakeLLM tests cover the logic; this one checks what only a real client shows: the
delegation tools reach the wire under valid function names, the planner's structured
call goes through instructor, a delegation becomes the coworker's own HTTP call, and a
cassette made from real traffic replays the whole run offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crewgraph import LLM, Agent, Crew, Process, Task
from crewgraph.testing import OpenAICompatServer, ServerReply

DELEGATE = "Delegate_work_to_coworker"
PLAN = "Ask the researcher for three facts, then summarise them."


def _responder(body: dict[str, Any]) -> ServerReply:
    """Answer by who is asking (the system prompt), so concurrent calls cannot get mixed up."""
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages and messages[0].get("role") == "system" else ""
    answered = any(m.get("role") == "tool" for m in messages)
    if "Task Execution Planner" in system:
        return ServerReply.structured(
            {"list_of_plans_per_task": [{"task_number": 1, "task": "Research owls", "plan": PLAN}]}
        )
    if "Crew Manager" in system and not answered:
        return ServerReply.tool_calls(
            (DELEGATE, {"task": "Find three owl facts", "context": "for a blog post", "coworker": "researcher"}),
            (DELEGATE, {"task": "Do it yourself", "context": "", "coworker": "Crew Manager"}),
        )
    if "Crew Manager" in system:
        return ServerReply.text("Owls fly silently, turn their heads far and hunt at night.")
    if "You are Researcher" in system:
        return ServerReply.text("1. silent flight 2. head rotation 3. nocturnal hunting")
    return ServerReply.error(400, f"unexpected request: {system[:80]!r}")


def _crew(base_url: str, tape: Path) -> Crew:
    def llm() -> LLM:
        return LLM(model="test-model", base_url=base_url, api_key="k", retry_initial_delay=0.01, retry_max_delay=0.05)

    researcher = Agent(role="Researcher", goal="Find facts", backstory="b", llm=llm(), max_retry_limit=0)
    task = Task(name="research owls", description="Research owls", expected_output="three facts")
    return Crew(
        agents=[researcher],
        tasks=[task],
        process=Process.hierarchical,
        manager_llm=llm(),
        planning=True,
        planning_llm=llm(),
        cassette=tape,
    )


def test_planned_hierarchical_crew_over_http_then_replayed_offline(tmp_path: Path) -> None:
    tape = tmp_path / "owls.jsonl"
    with OpenAICompatServer(default=_responder) as server:
        out = _crew(server.base_url, tape).kickoff()
        chats = server.chat_requests
        base_url = server.base_url

    assert out.raw == "Owls fly silently, turn their heads far and hunt at night."
    manager_first = next(c for c in chats if "Crew Manager" in c["messages"][0]["content"])
    assert {t["function"]["name"] for t in manager_first["tools"]} == {DELEGATE, "Ask_question_to_coworker"}
    assert PLAN in manager_first["messages"][-1]["content"]  # the plan reached the manager's prompt
    researcher_call = next(c for c in chats if "You are Researcher" in c["messages"][0]["content"])
    assert "Find three owl facts" in researcher_call["messages"][-1]["content"]
    assert "for a blog post" in researcher_call["messages"][-1]["content"]
    assert len(chats) == 4  # planner, manager turn, researcher, manager's answer

    g = out.graph
    assert g.record("planning").status == "completed" and g.record("planning").usage.total_tokens > 0
    delegated = g.record("t1_research_owls.manager.it1.0.delegate.researcher")
    assert delegated.kind == "agent_step" and delegated.parent == "t1_research_owls.manager"
    assert delegated.status == "completed"
    assert len(out.tool_failures) == 1  # the manager naming itself: a message back, not a crash
    assert "you cannot delegate to yourself (Crew Manager)" in out.tool_failures[0].failure.message
    assert tape.is_file()

    # The server is gone: every call of the same run must come from the cassette.
    replayed = _crew(base_url, tape).kickoff()
    assert replayed.raw == out.raw
    assert [t.raw for t in replayed.tasks_output] == [t.raw for t in out.tasks_output]
    assert replayed.graph.record("t1_research_owls.manager.it1.0.delegate.researcher").status == "completed"


def test_transport_retries_show_on_the_llm_call_of_the_executed_graph() -> None:
    """A 429 and a 503 the client retried are invisible in the answer, but not in the graph."""
    from crewgraph.export import run_to_json

    replies = [ServerReply.error(429, retry_after=0), ServerReply.error(503), ServerReply.text("ok")]
    with OpenAICompatServer(replies) as server:
        llm = LLM(model="m", base_url=server.base_url, api_key="k", retry_initial_delay=0.01, retry_max_delay=0.02)
        agent = Agent(role="R", goal="g", llm=llm)
        out = Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)]).kickoff()
    call = out.graph.record("t1_d.agent.llm1")
    assert call.status == "completed" and call.attempts == 3 and call.executions == 1
    assert [e.split(" from ")[0] for e in call.info["retry_errors"]] == ["HTTP 429", "HTTP 503"]
    assert out.graph.record("t1_d.agent").attempts == 1  # the step itself was not retried
    assert "2 retries" in out.graph.to_dot()
    assert run_to_json(out.graph)["totals"]["retries"] == 2
