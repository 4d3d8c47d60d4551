"""Hierarchical crew -> ExecutionGraph: one ``manager_step`` per task, in task order.

The manager (``manager_agent``, or one built from ``manager_llm`` with
CrewAI's manager persona) works each task itself, with the delegation tools
as its means: every delegation becomes the coworker's ``agent_step`` spawned
under the manager's step at run time, so the plan shows the tasks and who
*may* be asked (dashed "may call" edges to the delegation tools), and the
executed graph shows who actually was.

Per task (``tk`` its stable key): ``tk.recall`` (memory) -> ``tk.manager`` ->
``tk.convert`` (structured output) -> ``tk.guardrail1..n`` -> ``tk.save``
(memory), like a sequential crew's chain with the manager in the agent's place. Tasks run in order; a task without explicit
``context`` sees every earlier task's output. A task with an ``agent``
restricts the manager to that coworker, as in CrewAI.
"""

from __future__ import annotations

from typing import Any

from crewgraph.compiler._knowledge import add_knowledge
from crewgraph.compiler._task_chain import (
    add_output_chain,
    add_reasoning,
    add_recall,
    add_tool_templates,
    agent_memory,
    step_fields,
)
from crewgraph.compiler.crew_compiler import TaskPlan, task_key
from crewgraph.compiler.validate import task_label
from crewgraph.errors import CompileError, ConfigurationError
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.nodes.manager_step import ManagerStepNode
from crewgraph.spec.agent import Agent
from crewgraph.spec.task import Task
from crewgraph.tools.delegation import delegation_tools

__all__ = ["MANAGER_BACKSTORY", "MANAGER_GOAL", "MANAGER_ROLE", "compile_hierarchical", "manager_for"]

MANAGER_ROLE = "Crew Manager"
MANAGER_GOAL = "Manage the team to complete the task in the best way possible."
MANAGER_BACKSTORY = (
    "You are a seasoned manager with a knack for getting the best out of your team.\n"
    "You are also known for your ability to delegate work to the right people, and to ask "
    "the right questions to get the best out of your team.\nEven though you don't perform "
    "tasks by yourself, you have a lot of experience in the field, which allows you to "
    "properly evaluate the work of your team members."
)


def manager_for(crew: Any) -> Agent:
    """The crew's manager: ``manager_agent`` as given, else CrewAI's manager on ``manager_llm``."""
    if crew.manager_agent is not None:
        return crew.manager_agent
    return Agent(
        role=MANAGER_ROLE,
        goal=MANAGER_GOAL,
        backstory=MANAGER_BACKSTORY,
        llm=crew.manager_llm,
        allow_delegation=True,
    )


def compile_hierarchical(crew: Any, inputs: dict[str, Any] | None = None) -> ExecutionGraph:
    """Build the plan of a hierarchical crew (``validate_crew`` has already run)."""
    manager = manager_for(crew)
    coworkers = [a for a in crew.agents if a.id != manager.id]
    _check_manager(crew, manager, coworkers)
    graph = ExecutionGraph(name=getattr(crew, "name", None) or "crew")
    tasks: list[Task] = list(crew.tasks)
    plans: dict[Any, TaskPlan] = {}
    for i, task in enumerate(tasks):
        earlier = [plans[t.id] for t in tasks[:i]]
        explicit = [plans[t.id] for t in task.context or [] if t.id in plans]
        context = explicit if task.context is not None else earlier
        plan = _task_nodes(graph, crew, manager, coworkers, task, i, [p.final for p in context])
        plans[task.id] = plan
        if earlier:
            prev = earlier[-1].final
            graph.add_edge(prev, plan.agent, kind="context" if earlier[-1] in context else "order")
            if plan.first != plan.agent:
                graph.add_edge(prev, plan.first, kind="order")
        for ctx_plan in context:
            if not graph.digraph.has_edge(ctx_plan.final, plan.agent):
                graph.add_edge(ctx_plan.final, plan.agent, kind="context")
    _check_forward_context(tasks, plans)
    graph.meta.update(
        kind="crew",
        process="hierarchical",
        manager=manager.role,
        tasks=[plans[t.id].as_dict() for t in tasks],
        final=plans[tasks[-1].id].final,
    )
    return graph


def _check_manager(crew: Any, manager: Agent, coworkers: list[Agent]) -> None:
    problems: list[str] = []
    if crew.manager_agent is not None:
        if manager.tools:
            problems.append(
                f"the manager agent {manager.role!r} must not have tools: it works through its "
                "coworkers (give the tools to them)"
            )
        if any(a.id == manager.id for a in crew.agents):
            problems.append(
                f"the manager agent {manager.role!r} must not also be in the crew's agents "
                "(or be a task's agent): it cannot delegate to itself"
            )
    if not coworkers:
        problems.append("a hierarchical crew needs at least one agent besides the manager to delegate to")
    external = [a.role for a in coworkers if not isinstance(a, Agent)]
    if external:
        problems.append(
            f"the manager cannot delegate to third-party agents (BaseAgent subclasses): "
            f"{', '.join(map(repr, external))}; use them in a sequential or parallel crew"
        )
    if problems:
        msg = problems[0] if len(problems) == 1 else f"{len(problems)} problems found:\n" + "\n".join(f"  - {p}" for p in problems)
        raise CompileError(msg, problems=problems)


def _check_forward_context(tasks: list[Task], plans: dict[Any, TaskPlan]) -> None:
    for i, task in enumerate(tasks):
        for ctx_task in task.context or []:
            if ctx_task.id in plans and plans[ctx_task.id].index > i:
                label = task_label(task, i)
                raise CompileError(
                    f"{label} lists a later task ({ctx_task.display_name()!r}) in its context; "
                    "a hierarchical crew works its tasks in order",
                    task=label,
                )


def _task_nodes(
    graph: ExecutionGraph,
    crew: Any,
    manager: Agent,
    coworkers: list[Agent],
    task: Task,
    index: int,
    context_nodes: list[str],
) -> TaskPlan:
    key = task_key(task, index)
    name = task.name or task.display_name()
    allowed = [task.agent] if task.agent is not None and task.agent.id != manager.id else coworkers
    try:
        tools = [*task.own_tools, *delegation_tools(allowed, delegator=manager)]
    except ConfigurationError as exc:
        raise CompileError(f"{task_label(task, index)}: {exc}", task=task_label(task, index)) from None
    memory_obj = agent_memory(crew, manager)
    recall_id = add_recall(graph, key, name, task, memory_obj)
    knowledge_id = add_knowledge(graph, key, name, task, crew, manager)
    step = ManagerStepNode(
        id=f"{key}.manager",
        knowledge_node=knowledge_id,
        coworker_roles=tuple(a.role for a in allowed),
        **step_fields(crew, task, manager, name, tools, context_nodes, recall_id),
    )
    graph.add_node(step, task=key)
    if recall_id is not None:
        graph.add_edge(recall_id, step.id, kind="memory")
    if knowledge_id is not None:
        graph.add_edge(knowledge_id, step.id, kind="knowledge")
    add_reasoning(graph, crew, task, manager, step)
    add_tool_templates(graph, key, step.id, tools)
    final = add_output_chain(graph, task, key, name, step, memory_obj)
    first = recall_id or step.id
    return TaskPlan(key=key, name=name, first=first, agent=step.id, final=final, index=index)
