"""``@on(InterceptionPoint.X)``: CrewAI's one hook API, over crewgraph's hook lists and kickoffs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.hooks import (
    EXECUTION_BOUNDARY_POINTS,
    HookAborted,
    InterceptionPoint,
    clear_all_hooks,
    clear_hooks,
    dispatch,
    get_before_llm_call_hooks,
    get_hooks,
    on,
    register_hook,
    unregister_hook,
)
from crewgraph.hooks.points import InterceptionContext
from crewgraph.testing import FakeLLM


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    clear_all_hooks()
    yield
    clear_all_hooks()


def _crew(llm: FakeLLM) -> Crew:
    writer = Agent(role="Writer", goal="Write", backstory="b", llm=llm)
    return Crew(agents=[writer], tasks=[Task(description="Write about {topic}", expected_output="text",
                                              agent=writer)])


def test_model_points_are_the_llm_call_hooks() -> None:
    @on(InterceptionPoint.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        return None

    assert get_hooks(InterceptionPoint.PRE_MODEL_CALL) == [guard]
    assert get_before_llm_call_hooks() == [guard]  # one ordered list per point
    assert unregister_hook(InterceptionPoint.PRE_MODEL_CALL, guard) is True
    assert get_before_llm_call_hooks() == []


def test_pre_model_call_sees_and_changes_the_messages() -> None:
    llm = FakeLLM(default="done")

    @on(InterceptionPoint.PRE_MODEL_CALL, agents=["Writer"])
    def add_rule(ctx: Any) -> None:
        ctx.messages.append({"role": "user", "content": "Answer in one word."})

    _crew(llm).kickoff(inputs={"topic": "tea"})
    assert llm.calls[0].messages[-1]["content"] == "Answer in one word."


def test_boundary_points_run_in_order_and_replace_inputs_and_output() -> None:
    seen: list[str] = []
    llm = FakeLLM(default="a text")

    @on(InterceptionPoint.EXECUTION_START)
    def started(ctx: Any) -> None:
        seen.append(f"start:{ctx.payload['topic']}")

    @on(InterceptionPoint.INPUT)
    def inputs(ctx: Any) -> dict[str, Any]:
        seen.append("input")
        return {**ctx.payload, "topic": "coffee"}

    @on(InterceptionPoint.OUTPUT)
    def output(ctx: Any) -> None:
        seen.append(f"output:{ctx.payload.raw}")
        ctx.payload.raw = ctx.payload.raw.upper()

    @on(InterceptionPoint.EXECUTION_END)
    def ended(ctx: Any) -> None:
        seen.append(f"end:{ctx.status}")

    out = _crew(llm).kickoff(inputs={"topic": "tea"})
    assert "coffee" in llm.calls[0].messages[-1]["content"]  # the INPUT hook's inputs were used
    assert out.raw == "A TEXT"
    assert seen == ["start:tea", "input", "output:a text", "end:completed"]
    assert {InterceptionPoint.EXECUTION_START, InterceptionPoint.INPUT,
                                         InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END} == EXECUTION_BOUNDARY_POINTS


def test_hook_aborted_stops_the_kickoff_and_execution_end_sees_the_failure() -> None:
    ended: list[Any] = []

    def refuse(ctx: Any) -> None:
        raise HookAborted("no tea today", source="policy")

    register_hook(InterceptionPoint.INPUT, refuse)
    register_hook(InterceptionPoint.EXECUTION_END, lambda ctx: ended.append((ctx.status, ctx.error)))
    llm = FakeLLM(default="x")
    with pytest.raises(HookAborted, match="no tea today"):
        _crew(llm).kickoff(inputs={"topic": "tea"})
    assert llm.calls == []
    assert ended and ended[0][0] == "failed" and isinstance(ended[0][1], HookAborted)


def test_clear_hooks_and_dispatch() -> None:
    register_hook(InterceptionPoint.OUTPUT, lambda ctx: ctx.payload + 1)
    register_hook(InterceptionPoint.OUTPUT, lambda ctx: ctx.payload * 10)
    ctx = dispatch(InterceptionPoint.OUTPUT, InterceptionContext(payload=1))
    assert ctx.payload == 20
    assert clear_hooks(InterceptionPoint.OUTPUT) == 2
    assert get_hooks(InterceptionPoint.OUTPUT) == []


def test_a_failing_hook_is_an_error_naming_it() -> None:
    from crewgraph.errors import CallbackError

    def broken(ctx: Any) -> None:
        raise KeyError("nope")

    register_hook(InterceptionPoint.OUTPUT, broken)
    with pytest.raises(CallbackError, match="broken"):
        dispatch(InterceptionPoint.OUTPUT, InterceptionContext(payload=1))


def test_step_points_see_and_change_a_tasks_context_and_output() -> None:
    from crewgraph.hooks.points import StepContext

    seen: list[tuple[str, str | None, str]] = []

    @on(InterceptionPoint.PRE_STEP)
    def pre(ctx: StepContext) -> str | None:
        seen.append(("pre", ctx.step_name, ctx.kind or ""))
        return "Use the house style." if ctx.step_name == "edit" else None

    @on(InterceptionPoint.POST_STEP)
    def post(ctx: StepContext) -> str | None:
        seen.append(("post", ctx.step_name, ctx.payload.raw))
        return ctx.payload.raw.upper() if ctx.step_name == "draft" else None

    llm = FakeLLM(["a draft", "edited"])
    writer = Agent(role="Writer", goal="write", backstory="b", llm=llm)
    draft = Task(name="draft", description="Draft it", expected_output="text", agent=writer)
    edit = Task(name="edit", description="Edit it", expected_output="text", agent=writer, context=[])
    out = Crew(agents=[writer], tasks=[draft, edit]).kickoff()
    assert seen == [("pre", "draft", "task"), ("post", "draft", "a draft"),
                    ("pre", "edit", "task"), ("post", "edit", "edited")]
    assert out.tasks_output[0].raw == "A DRAFT" and draft.output is not None and draft.output.raw == "A DRAFT"
    assert "Use the house style." in llm.calls[1].prompt


def test_crewbase_methods_are_crew_scoped() -> None:
    from crewgraph.project import CrewBase, agent, task
    from crewgraph.project import crew as crew_method

    seen: list[str] = []

    @CrewBase
    class Team:
        agents_config: dict[str, Any] = {}
        tasks_config: dict[str, Any] = {}

        @agent
        def writer(self) -> Agent:
            return Agent(role="Writer", goal="Write", backstory="b", llm=FakeLLM(default="t"))

        @task
        def write(self) -> Task:
            return Task(description="Write", expected_output="text", agent=self.writer())

        @on(InterceptionPoint.EXECUTION_START)
        def note(self, ctx: Any) -> None:
            seen.append("scoped")

        @crew_method
        def crew(self) -> Crew:
            return Crew(agents=self.agents, tasks=self.tasks)

    Team().crew().kickoff()
    assert seen == ["scoped"]
    assert get_hooks(InterceptionPoint.EXECUTION_START) == []  # not registered globally
    _crew(FakeLLM(default="x")).kickoff(inputs={"topic": "t"})
    assert seen == ["scoped"]


def test_step_points_fire_once_per_task_through_an_execute_task_override() -> None:
    steps: list[str] = []
    on(InterceptionPoint.PRE_STEP)(lambda ctx: steps.append(f"pre {ctx.step_name}"))
    on(InterceptionPoint.POST_STEP)(lambda ctx: steps.append(f"post {ctx.payload.raw}"))

    class Audited(Agent):
        def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            return "audited: " + super().execute_task(task, context, tools)

    agent = Audited(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="text"))
    Crew(agents=[agent], tasks=[Task(name="t", description="d", expected_output="e", agent=agent)]).kickoff()
    assert steps == ["pre t", "post audited: text"]
