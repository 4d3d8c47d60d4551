"""The rules a crew definition must satisfy, checked when ``Crew(...)`` is built.

CrewAI raises these as a pydantic ``ValidationError`` at definition time, and
so do we (same error ``type``s, so code that inspects ``err.errors()`` keeps
working), with two improvements: every problem is reported at once, and each
names the field it is about in ``loc`` (``tasks.2.context``) and the task by
name. What needs the kickoff inputs (missing ``{placeholders}``) is left to
``crew.compile(inputs)``, which also re-checks these rules for crews changed
after they were built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from crewgraph.spec.process import Process

__all__ = ["CrewProblem", "crew_problems", "raise_problems", "task_label"]


@dataclass(frozen=True)
class CrewProblem:
    """One broken rule: where (pydantic ``loc``), CrewAI's error type, the message."""

    loc: tuple[str | int, ...]
    type: str
    message: str
    task: str | None = None
    ctx: dict[str, Any] = field(default_factory=dict)


def task_label(task: Any, index: int) -> str:
    """How errors name a task: its name if set, else its position and description."""
    if task.name:
        return f"task {task.name!r}"
    return f"task #{index + 1} ({task.display_name()!r})"


def crew_problems(crew: Any, *, at_definition: bool = False) -> list[CrewProblem]:
    """Every definition rule ``crew`` breaks (empty when it is fine).

    ``at_definition``: the checks ``Crew(...)`` makes. As in CrewAI, a crew may be built
    without tasks (and given them later); the missing tasks are reported at kickoff."""
    tasks = list(crew.tasks)
    process = Process(crew.process)
    problems: list[CrewProblem] = []
    if not tasks and not at_definition:
        problems.append(CrewProblem(("tasks",), "missing_tasks", "A crew needs at least one task: `tasks` is empty."))
    members = [a for a in crew.agents if crew.manager_agent is None or a.id != crew.manager_agent.id]
    if not members and (tasks or not at_definition):
        problems.append(
            CrewProblem(
                ("agents",),
                "missing_agents",
                "A crew needs at least one agent: `agents` is empty and no task names an agent"
                + (" (the manager agent does not count)." if process == Process.hierarchical else "."),
            )
        )
    if process == Process.hierarchical:
        problems.extend(_manager_problems(crew))
    index: dict[Any, int] | None = None  # task id -> position, built for the first task with a context
    for i, task in enumerate(tasks):
        if task.agent is None and process != Process.hierarchical:
            label = task_label(task, i)  # only for a problem: labels were a tenth of a compile
            problems.append(
                CrewProblem(
                    ("tasks", i, "agent"),
                    "missing_agent_in_task",
                    f"{process.value.capitalize()} process error: Agent is missing in {label} "
                    "(every task of a sequential or parallel crew needs an agent; "
                    "only a hierarchical crew's manager assigns tasks)",
                    task=label,
                )
            )
        if process != Process.parallel:
            for ctx_task in task.context or []:
                if index is None:
                    index = {t.id: k for k, t in enumerate(tasks)}
                j = index.get(ctx_task.id)
                if j is not None and j > i:
                    label = task_label(task, i)
                    problems.append(
                        CrewProblem(
                            ("tasks", i, "context"),
                            "context_future_task",
                            f"{label} has a context dependency on a future task {task_label(ctx_task, j)}, "
                            "which is not allowed (move it before this task, or use Process.parallel, "
                            "where only context orders tasks)",
                            task=label,
                        )
                    )
    problems.extend(_conditional_problems(tasks, process))
    trailing = _trailing_async(tasks)
    if len(trailing) > 1:
        names = ", ".join(task_label(tasks[i], i) for i in trailing)
        problems.append(
            CrewProblem(
                ("tasks",),
                "async_task_count",
                f"The crew must end with at most one asynchronous task; it ends with {len(trailing)}: {names}",
            )
        )
    return problems


def _manager_problems(crew: Any) -> list[CrewProblem]:
    problems: list[CrewProblem] = []
    if not crew.manager_llm and not crew.manager_agent:
        problems.append(
            CrewProblem(
                ("manager_llm",),
                "missing_manager_llm_or_manager_agent",
                "Attribute `manager_llm` or `manager_agent` is required when using hierarchical process.",
            )
        )
    manager = crew.manager_agent
    if manager is not None and any(a.id == manager.id for a in crew.agents):
        problems.append(
            CrewProblem(
                ("manager_agent",),
                "manager_agent_in_agents",
                f"Manager agent should not be included in agents list ({manager.role!r} is in both).",
            )
        )
    return problems


def _condition_of(task: Any) -> Any:
    """``task.condition`` if its class has that field, without ``getattr`` of a missing name on
    a pydantic model (its slow ``BaseModel.__getattr__``, once per task of every crew); the
    class's ``__pydantic_fields__``, not its ``model_fields`` (a slow descriptor)."""
    fields = getattr(type(task), "__pydantic_fields__", None)  # model_fields is a slow descriptor
    if isinstance(fields, dict):
        return task.__dict__.get("condition") if "condition" in fields else None
    return getattr(task, "condition", None)


def _conditional_problems(tasks: list[Any], process: Process) -> list[CrewProblem]:
    """CrewAI's ConditionalTask rules (and crewgraph's: not in a hierarchical crew)."""
    problems: list[CrewProblem] = []
    conditional: list[int] = []
    for i, t in enumerate(tasks):  # one pass; a plain Task (no condition field) is passed over inline
        fields = getattr(type(t), "__pydantic_fields__", None)
        if isinstance(fields, dict) and "condition" not in fields:
            continue
        if _condition_of(t) is not None:
            conditional.append(i)
        elif "condition" in (fields or {}):
            problems.append(
                CrewProblem(("tasks", i, "condition"), "missing_condition",
                            f"{task_label(t, i)} is a ConditionalTask without a condition function",
                            task=task_label(t, i))
            )
    if not conditional:
        return problems
    if len(conditional) == len(tasks):
        problems.append(
            CrewProblem(("tasks",), "only_conditional_tasks", "Crew must include at least one non-conditional task")
        )
    elif conditional[0] == 0:
        problems.append(
            CrewProblem(("tasks", 0), "invalid_first_task", "The first task cannot be a ConditionalTask.",
                        task=task_label(tasks[0], 0))
        )
    for i in conditional:
        label = task_label(tasks[i], i)
        if tasks[i].async_execution:
            problems.append(
                CrewProblem(("tasks", i, "async_execution"), "invalid_async_conditional_task",
                            f"Conditional Task: {label}, cannot be executed asynchronously.", task=label)
            )
        if process == Process.hierarchical:
            problems.append(
                CrewProblem(("tasks", i), "conditional_task_in_hierarchical_crew",
                            f"{label} is a ConditionalTask: a hierarchical crew's manager decides what runs, "
                            "so conditional tasks are not supported there (use a sequential crew)", task=label)
            )
    return problems


def _trailing_async(tasks: list[Any]) -> list[int]:
    """Positions of the async tasks the crew ends with (CrewAI allows at most one)."""
    out: list[int] = []
    for i in range(len(tasks) - 1, -1, -1):
        if not tasks[i].async_execution:
            break
        out.append(i)
    return sorted(out)


def raise_problems(title: str, problems: list[CrewProblem], value: Any) -> None:
    """Raise one pydantic ``ValidationError`` listing every problem under its field."""
    if not problems:
        return
    raise ValidationError.from_exception_data(
        title,
        [
            InitErrorDetails(
                type=PydanticCustomError(p.type, p.message),
                loc=p.loc,
                input=value,
            )
            for p in problems
        ],
    )
