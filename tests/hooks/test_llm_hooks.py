"""before_llm_call / after_llm_call: change the messages, block, rewrite the response,
globally, per agent and per crew (a @CrewBase class's methods), inside the node."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from crewgraph import Agent, Crew, Task
from crewgraph.errors import CallbackError
from crewgraph.events import crewgraph_event_bus
from crewgraph.events.llm_events import LLMCallStartedEvent
from crewgraph.hooks import (
    HookAborted,
    LLMCallBlockedError,
    LLMCallHookContext,
    after_llm_call,
    before_llm_call,
    get_before_llm_call_hooks,
    register_after_llm_call_hook,
    register_before_llm_call_hook,
    unregister_before_llm_call_hook,
)
from crewgraph.project import CrewBase, agent, crew, task
from crewgraph.testing import FakeLLM

EMAIL = re.compile(r"[\w.]+@[\w.]+")


def _crew(llm: FakeLLM, role: str = "Writer", description: str = "Write to ann@example.com") -> Crew:
    writer = Agent(role=role, goal="Write", backstory="Writes.", llm=llm)
    return Crew(agents=[writer], tasks=[Task(description=description, expected_output="A note", agent=writer)])


def test_a_before_hook_redacts_the_messages_the_model_and_the_events_see() -> None:
    seen: list[LLMCallHookContext] = []

    @before_llm_call
    def redact(context: LLMCallHookContext) -> None:
        seen.append(context)
        for message in context.messages:
            if isinstance(message.get("content"), str):
                message["content"] = EMAIL.sub("[email]", message["content"])

    started: list[LLMCallStartedEvent] = []
    llm = FakeLLM(["done"])
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(LLMCallStartedEvent)(lambda source, event: started.append(event))
        assert _crew(llm).kickoff().raw == "done"
    prompt = llm.calls[0].prompt
    assert "[email]" in prompt and "ann@example.com" not in prompt
    assert started and "ann@example.com" not in str(started[0].messages)
    assert seen[0].agent is not None and seen[0].agent.role == "Writer"
    assert seen[0].task is not None and seen[0].task.description == "Write to ann@example.com"
    assert seen[0].crew == "crew" and seen[0].iterations == 0 and seen[0].llm is llm


def test_returning_false_blocks_the_call_and_the_node_is_not_retried() -> None:
    register_before_llm_call_hook(lambda context: False)
    llm = FakeLLM(["never"])
    with pytest.raises(LLMCallBlockedError, match="LLM call blocked by before_llm_call hook") as info:
        _crew(llm).kickoff()
    assert isinstance(info.value, ValueError)
    assert "Agent 'Writer' on task" in str(info.value)
    assert llm.call_count == 0


def test_hook_aborted_blocks_with_its_reason() -> None:
    @before_llm_call
    def budget(context: LLMCallHookContext) -> None:
        raise HookAborted("token budget spent", source="budget-gate")

    with pytest.raises(LLMCallBlockedError, match=r"budget-gate.*token budget spent") as info:
        _crew(FakeLLM(["never"])).kickoff()
    assert info.value.reason == "token budget spent"


def test_an_after_hook_rewrites_the_response_the_task_keeps() -> None:
    @after_llm_call
    def scrub(context: LLMCallHookContext) -> str | None:
        assert context.response is not None
        return EMAIL.sub("[email]", context.response)

    out = _crew(FakeLLM(["Mail bob@example.org today"])).kickoff()
    assert out.raw == "Mail [email] today"
    assert out.tasks_output[0].raw == "Mail [email] today"


def test_after_hooks_chain_and_none_keeps_the_text() -> None:
    register_after_llm_call_hook(lambda context: (context.response or "") + " one")
    register_after_llm_call_hook(lambda context: None)
    register_after_llm_call_hook(lambda context: (context.response or "") + " two")
    assert _crew(FakeLLM(["zero"])).kickoff().raw == "zero one two"


def test_the_agents_filter_limits_a_hook_to_those_roles() -> None:
    calls: list[str] = []

    @before_llm_call(agents=["Researcher"])
    def only_research(context: LLMCallHookContext) -> None:
        assert context.agent is not None
        calls.append(context.agent.role)

    _crew(FakeLLM(["a"]), role="Writer").kickoff()
    assert calls == []
    _crew(FakeLLM(["b"]), role="Researcher").kickoff()
    assert calls == ["Researcher"]


def test_registration_functions_list_and_remove_hooks() -> None:
    def hook(context: LLMCallHookContext) -> None:
        return None

    register_before_llm_call_hook(hook)
    assert hook in get_before_llm_call_hooks()
    assert unregister_before_llm_call_hook(hook) is True
    assert unregister_before_llm_call_hook(hook) is False
    with pytest.raises(TypeError, match="must be callable"):
        register_before_llm_call_hook("not a hook")  # type: ignore[arg-type]


def test_a_broken_hook_fails_the_call_naming_it() -> None:
    @before_llm_call
    def broken(context: LLMCallHookContext) -> None:
        raise KeyError("oops")

    with pytest.raises(CallbackError, match=r"before_llm_call hook .*broken.* raised KeyError"):
        _crew(FakeLLM(["never"])).kickoff()


def test_hooks_run_again_on_a_retried_attempt() -> None:
    attempts: list[int] = []
    register_before_llm_call_hook(lambda context: attempts.append(context.attempt))
    llm = FakeLLM([ConnectionError("reset"), "done"])
    assert _crew(llm).kickoff().raw == "done"
    assert attempts == [1, 2]


def test_crew_scoped_hooks_apply_to_that_crew_only() -> None:
    calls: list[str] = []
    llm = FakeLLM(["scoped", "plain"])

    @CrewBase
    class Scoped:
        agents_config = {"writer": {"role": "Writer", "goal": "Write", "backstory": "Writes."}}
        tasks_config = {"note": {"description": "Write a note", "expected_output": "A note", "agent": "writer"}}

        @agent
        def writer(self) -> Agent:
            return Agent(config=self.agents_config["writer"], llm=llm)

        @task
        def note(self) -> Task:
            return Task(config=self.tasks_config["note"])

        @before_llm_call
        def count(self, context: LLMCallHookContext) -> None:
            calls.append("before")

        @after_llm_call
        def shout(self, context: LLMCallHookContext) -> str:
            return (context.response or "").upper()

        @crew
        def crew(self) -> Crew:
            return Crew(agents=self.agents, tasks=self.tasks)

    assert get_before_llm_call_hooks() == []  # a method is not registered globally
    assert Scoped().crew().kickoff().raw == "SCOPED"
    assert _crew(llm).kickoff().raw == "plain"
    assert calls == ["before"]


class Contact(BaseModel):
    name: str
    email: str


def _contact_crew(*replies: object) -> Crew:
    writer = Agent(role="Writer", goal="Write", backstory="Writes.",
                   llm=FakeLLM(list(replies) or [Contact(name="Ann", email="ann@example.com")]))
    task = Task(description="Who is Ann?", expected_output="A contact", agent=writer, output_pydantic=Contact)
    return Crew(agents=[writer], tasks=[task])


def test_an_after_hook_rewrites_a_structured_reply_as_json() -> None:
    @after_llm_call
    def scrub(context: LLMCallHookContext) -> str:
        return EMAIL.sub("[email]", context.response or "")

    out = _contact_crew().kickoff()
    assert out.pydantic == Contact(name="Ann", email="[email]")


def test_a_structured_replacement_that_does_not_validate_is_an_error() -> None:
    register_after_llm_call_hook(lambda context: "not json")
    # the agent's text answer is replaced freely; the converter's structured reply must validate
    with pytest.raises(CallbackError, match="structured Contact reply"):
        _contact_crew("Ann, ann@example.com", Contact(name="Ann", email="ann@example.com")).kickoff()
