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

import dataclasses
from typing import Any

from crewgraph.compiler.crew_compiler import TaskPlan, _agent_memory, _saves_memory, task_key
from crewgraph.compiler.validate import task_label
from crewgraph.errors import CompileError, ConfigurationError
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node
from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.ids import slugify
from crewgraph.nodes.convert import ConvertNode
from crewgraph.nodes.guardrail import GuardrailNode, guardrail_name
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
            if not graph.graph.has_edge(ctx_plan.final, plan.agent):
                graph.add_edge(ctx_plan.final, plan.agent, kind="context")
    _check_forward_context(tasks, plans)
    graph.meta.update(
        kind="crew",
        process="hierarchical",
        manager=manager.role,
        tasks=[dataclasses.asdict(plans[t.id]) for t in tasks],
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
        tools = [*task.tools, *delegation_tools(allowed, delegator=manager)]
    except ConfigurationError as exc:
        raise CompileError(f"{task_label(task, index)}: {exc}", task=task_label(task, index)) from None
    llm = manager.llm if manager.llm is not None else getattr(crew, "llm", None)
    rpm_keys = _rpm_keys(crew, manager)
    structured = task.structured_model
    memory_obj = _agent_memory(crew, manager)
    recall_id = _recall(graph, key, name, task, memory_obj)
    step = ManagerStepNode(
        id=f"{key}.manager",
        label=name,
        task_name=name,
        description=task.description,
        expected_output=task.expected_output,
        agent_role=manager.role,
        agent_goal=manager.goal,
        agent_backstory=manager.backstory,
        system_template=manager.system_template,
        llm=llm,
        tools=tuple(tools),
        max_iter=manager.max_iter,
        context_nodes=tuple(context_nodes),
        memory_node=recall_id,
        tool_policies=(task.tool_failure_policy, manager.tool_failure_policy, getattr(crew, "tool_failure_policy", None)),
        cache=bool(manager.cache),
        rpm_keys=rpm_keys,
        output_schema=structured.model_json_schema() if structured is not None else None,
        human_input=task.human_input,
        step_callbacks=tuple(cb for cb in (manager.step_callback, getattr(crew, "step_callback", None)) if cb),
        retry=RetryPolicy(max_attempts=1 + manager.max_retry_limit, initial_delay=1.0, max_delay=20.0),
        timeout=TimeoutPolicy(manager.max_execution_time),
        coworker_roles=tuple(a.role for a in allowed),
    )
    graph.add_node(step, task=key)
    if recall_id is not None:
        graph.add_edge(recall_id, step.id, kind="memory")
    _tool_templates(graph, key, step.id, tools)
    final = step.id
    redo: list[Node] = [step]
    if structured is not None:
        convert = ConvertNode(
            id=f"{key}.convert",
            label=structured.__name__,
            task_name=name,
            source_node=step.id,
            model=structured,
            as_json=task.output_json is not None and task.output_pydantic is None,
            llm=llm,
            rpm_keys=rpm_keys,
        )
        graph.add_node(convert, task=key)
        graph.add_edge(final, convert.id, kind="convert")
        final = convert.id
        redo.append(convert)
    checks = task.all_guardrails
    for j in range(len(checks)):
        node = GuardrailNode(
            id=f"{key}.guardrail{j + 1}",
            label=guardrail_name(checks[j]),
            task_name=name,
            checks=tuple(checks[: j + 1]),
            source_node=final,
            max_retries=task.guardrail_max_retries,
            redo=tuple(redo),
            llm=llm,
            rpm_keys=rpm_keys,
        )
        graph.add_node(node, task=key)
        graph.add_edge(final, node.id, kind="guardrail")
        final = node.id
    if memory_obj is not None and _saves_memory(memory_obj):
        from crewgraph.nodes.memory_save import MemorySaveNode

        save = MemorySaveNode(
            id=f"{key}.save",
            label=f"save: {name}",
            task_name=name,
            agent_role=manager.role,
            source_node=final,
            memory=memory_obj if memory_obj is not True else None,
        )
        graph.add_node(save, task=key)
        graph.add_edge(final, save.id, kind="memory")
    first = recall_id or step.id
    return TaskPlan(key=key, name=name, first=first, agent=step.id, final=final, index=index)


def _recall(graph: ExecutionGraph, key: str, name: str, task: Task, memory_obj: Any) -> str | None:
    """The task's memory recall node (before the manager's step), when the crew has memory."""
    if memory_obj is None:
        return None
    from crewgraph.nodes.memory_recall import MemoryRecallNode

    recall_id = f"{key}.recall"
    graph.add_node(
        MemoryRecallNode(
            id=recall_id,
            label=f"recall: {name}",
            task_name=name,
            query=task.description,
            memory=memory_obj if memory_obj is not True else None,
        ),
        task=key,
    )
    return recall_id


def _tool_templates(graph: ExecutionGraph, key: str, step_id: str, tools: list[Any]) -> None:
    from crewgraph.nodes.tool_call import ToolTemplateNode

    for tool in tools:
        tid = f"{key}.tool.{slugify(tool.name, 30)}"
        if tid not in graph:
            graph.add_node(ToolTemplateNode(id=tid, label=tool.name, tool=tool), task=key)
        graph.add_edge(step_id, tid, kind="may_call")


def _rpm_keys(crew: Any, manager: Agent) -> tuple[str, ...]:
    keys: list[str] = []
    if manager.max_rpm:
        keys.append(f"agent:{manager.id}")
    if getattr(crew, "max_rpm", None):
        keys.append("crew")
    return tuple(keys)
