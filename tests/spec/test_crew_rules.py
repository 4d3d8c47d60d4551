"""Definition errors at definition time: ``Crew(...)`` raises a ValidationError naming the field.

The error types are CrewAI's, so code inspecting ``err.errors()`` keeps working;
every problem is reported at once, each under its field (``tasks.1.context``).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from crewgraph import Agent, CompileError, Crew, Process, Task


@pytest.fixture
def a() -> Agent:
    return Agent(role="Researcher", goal="Find facts")


def _errors(exc: pytest.ExceptionInfo[ValidationError]) -> list[tuple[tuple[object, ...], str]]:
    return [(e["loc"], e["type"]) for e in exc.value.errors()]


def test_hierarchical_crew_needs_a_manager(a: Agent) -> None:
    with pytest.raises(ValidationError) as info:
        Crew(agents=[a], tasks=[Task(description="d", expected_output="x")], process=Process.hierarchical)
    assert _errors(info) == [(("manager_llm",), "missing_manager_llm_or_manager_agent")]
    assert "`manager_llm` or `manager_agent` is required when using hierarchical process" in str(info.value)


def test_manager_agent_must_not_be_a_member(a: Agent) -> None:
    boss = Agent(role="Boss", goal="Lead")
    with pytest.raises(ValidationError) as info:
        Crew(agents=[a, boss], tasks=[Task(description="d", expected_output="x")],
             process=Process.hierarchical, manager_agent=boss)
    assert _errors(info) == [(("manager_agent",), "manager_agent_in_agents")]
    assert "'Boss' is in both" in str(info.value)


def test_sequential_task_needs_an_agent(a: Agent) -> None:
    with pytest.raises(ValidationError) as info:
        Crew(agents=[a], tasks=[Task(description="d", expected_output="x", agent=a),
                                Task(name="orphan", description="e", expected_output="x")])
    assert _errors(info) == [(("tasks", 1, "agent"), "missing_agent_in_task")]
    assert "Agent is missing in task 'orphan'" in str(info.value)


def test_context_naming_a_later_task(a: Agent) -> None:
    later = Task(name="later", description="l", expected_output="x", agent=a)
    first = Task(name="first", description="f", expected_output="x", agent=a, context=[later])
    with pytest.raises(ValidationError) as info:
        Crew(agents=[a], tasks=[first, later])
    assert _errors(info) == [(("tasks", 0, "context"), "context_future_task")]
    assert "task 'first' has a context dependency on a future task task 'later'" in str(info.value)
    # crewgraph's parallel process orders tasks by context alone, so there it is allowed
    plan = Crew(agents=[a], tasks=[first, later], process=Process.parallel).compile()
    assert plan.graph.has_edge("t2_later.agent", "t1_first.agent")


def test_no_tasks_or_no_agents(a: Agent) -> None:
    """As in CrewAI, a crew may be built without tasks; the missing tasks are reported at kickoff."""
    crew = Crew(agents=[a], tasks=[])
    with pytest.raises(ValidationError) as info:
        crew.kickoff()
    assert _errors(info) == [(("tasks",), "missing_tasks")]
    crew.tasks.append(Task(description="d", expected_output="x", agent=a))
    assert crew.compile() is not None  # given its tasks later, it runs
    with pytest.raises(ValidationError) as both:
        Crew().kickoff()
    assert _errors(both) == [(("tasks",), "missing_tasks"), (("agents",), "missing_agents")]
    with pytest.raises(ValidationError) as members:
        Crew(tasks=[Task(description="d", expected_output="x")], process=Process.hierarchical, manager_llm="gpt-4o")
    assert _errors(members) == [(("agents",), "missing_agents")]


def test_crew_ends_with_at_most_one_async_task(a: Agent) -> None:
    def t(name: str, is_async: bool) -> Task:
        return Task(name=name, description=name, expected_output="x", agent=a, async_execution=is_async)

    Crew(agents=[a], tasks=[t("a", True), t("b", True), t("c", False), t("d", True)])  # fine
    with pytest.raises(ValidationError) as info:
        Crew(agents=[a], tasks=[t("a", False), t("b", True), t("c", True)])
    assert _errors(info) == [(("tasks",), "async_task_count")]
    assert "ends with 2: task 'b', task 'c'" in str(info.value)


def test_every_problem_at_once_and_errors_are_value_errors(a: Agent) -> None:
    later = Task(name="later", description="l", expected_output="x", agent=a, async_execution=True)
    with pytest.raises(ValueError) as info:  # ValidationError is a ValueError, as CompileError is
        Crew(tasks=[Task(name="x", description="d", expected_output="x", context=[later]),
                    Task(name="y", description="e", expected_output="x", async_execution=True, agent=a), later])
    assert isinstance(info.value, ValidationError)
    assert [e["type"] for e in info.value.errors()] == [
        "missing_agent_in_task", "context_future_task", "async_task_count",
    ]
    assert issubclass(CompileError, ValueError)


def test_placeholders_are_still_a_compile_error(a: Agent) -> None:
    crew = Crew(agents=[a], tasks=[Task(name="t", description="About {topic}", expected_output="x", agent=a)])
    with pytest.raises(CompileError, match=r"task 't' uses \{topic\}") as info:
        crew.compile({})
    assert isinstance(info.value, ValueError)
