"""Crew -> ExecutionGraph: one chain of typed nodes per task, edges for order and context.

Per task (``tk`` is its stable key, e.g. ``t2_write_post``):
``tk.recall`` (memory) -> ``tk.agent`` -> ``tk.convert`` (structured output) ->
``tk.guardrail1..n`` -> ``tk.save`` (memory, off the critical path), plus a
plan-only ``tk.tool.<name>`` node per tool joined by a dashed "may_call" edge.
The task's *final* node (its last guardrail, else convert, else agent) is
what later tasks read as context and what the crew reports as its output.
Node ids depend only on task position and name, so a resumed run finds them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from crewgraph.compiler.validate import task_label, validate_crew
from crewgraph.errors import CompileError
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node
from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.ids import slugify
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.nodes.convert import ConvertNode
from crewgraph.nodes.guardrail import GuardrailNode, guardrail_name
from crewgraph.spec.agent import Agent
from crewgraph.spec.process import Process
from crewgraph.spec.task import Task

__all__ = ["TaskPlan", "compile_crew", "task_key"]


@dataclasses.dataclass(frozen=True)
class TaskPlan:
    """Where one task lives in the graph."""

    key: str
    name: str
    first: str
    agent: str
    final: str
    index: int


def task_key(task: Task, index: int) -> str:
    return f"t{index + 1}_{slugify(task.name or task.description, 24)}"


def compile_crew(crew: Any, inputs: dict[str, Any] | None = None) -> ExecutionGraph:
    """Validate ``crew`` and build its plan. Raises CompileError before any LLM call."""
    validate_crew(crew, inputs)
    process = Process(crew.process)
    if process == Process.hierarchical:
        from crewgraph.compiler.hierarchical import compile_hierarchical

        return compile_hierarchical(crew, inputs)
    graph = ExecutionGraph(name=getattr(crew, "name", None) or "crew")
    tasks: list[Task] = list(crew.tasks)
    plans: dict[Any, TaskPlan] = {}
    visible: list[Task] = []  # tasks finished before the current barrier (implicit context)
    last_sync: list[Task] = []  # the barrier: the previous synchronous task
    pending_async: list[Task] = []
    for i, task in enumerate(tasks):
        sequential = process == Process.sequential
        if sequential:
            order_preds = last_sync if task.async_execution else last_sync + pending_async
            implicit = list(visible) if task.async_execution else visible + pending_async
        else:
            order_preds, implicit = [], []
        explicit = list(task.context) if task.context is not None else None
        context_tasks = explicit if explicit is not None else implicit
        plan = _task_nodes(graph, crew, task, i, [plans[t.id].final for t in context_tasks if t.id in plans])
        plans[task.id] = plan
        for pred in order_preds:
            if pred not in context_tasks:
                graph.add_edge(plans[pred.id].final, plan.agent, kind="order")
        for ctx_task in context_tasks:
            if ctx_task.id in plans and ctx_task.id != task.id:  # later tasks are wired after the loop
                graph.add_edge(plans[ctx_task.id].final, plan.agent, kind="context", implicit=explicit is None)
        if plan.first != plan.agent:
            for pred in order_preds:
                graph.add_edge(plans[pred.id].final, plan.first, kind="order")
        if sequential:
            if task.async_execution:
                pending_async.append(task)
            else:
                visible = [*visible, *pending_async, task]
                last_sync, pending_async = [task], []
    _wire_forward_context(graph, tasks, plans)
    _check_acyclic(graph, tasks, plans)
    graph.meta.update(
        kind="crew",
        process=process.value,
        tasks=[dataclasses.asdict(plans[t.id]) for t in tasks],
        final=plans[tasks[-1].id].final,
    )
    return graph


def _wire_forward_context(graph: ExecutionGraph, tasks: list[Task], plans: dict[Any, TaskPlan]) -> None:
    """Context on a task that comes later in the list: allowed if it makes no cycle."""
    for task in tasks:
        for ctx_task in task.context or []:
            src, dst = plans[ctx_task.id].final, plans[task.id].agent
            if not graph.graph.has_edge(src, dst):
                graph.add_edge(src, dst, kind="context")
                node = graph.node(dst)
                if isinstance(node, AgentStepNode) and src not in node.context_nodes:
                    graph.graph.nodes[dst]["node"] = dataclasses.replace(
                        node, context_nodes=(*node.context_nodes, src)
                    )


def _check_acyclic(graph: ExecutionGraph, tasks: list[Task], plans: dict[Any, TaskPlan]) -> None:
    import networkx as nx

    try:
        cycle = nx.find_cycle(graph.graph)
    except nx.NetworkXNoCycle:
        return
    owner = {}
    for i, t in enumerate(tasks):
        for nid in graph.graph.nodes:
            if nid.startswith(plans[t.id].key + "."):
                owner[nid] = task_label(t, i)
    names: list[str] = []
    for u, _ in cycle:
        label = owner.get(u, u)
        if label not in names:
            names.append(label)
    first = names[0] if names else None
    raise CompileError(
        "tasks depend on each other in a cycle through `context`: " + " -> ".join([*names, names[0]]),
        task=first,
    )


def _task_nodes(graph: ExecutionGraph, crew: Any, task: Task, index: int, context_nodes: list[str]) -> TaskPlan:
    agent: Agent = task.agent  # type: ignore[assignment]  # validated
    key = task_key(task, index)
    name = task.name or task.display_name()
    tools = list(task.tools or agent.tools or [])
    tools.extend(_delegation_tools(crew, agent))
    rpm_keys = _rpm_keys(crew, agent)
    llm = agent.llm if agent.llm is not None else getattr(crew, "llm", None)
    memory_obj = _agent_memory(crew, agent)
    first = f"{key}.agent"
    recall_id: str | None = None
    if memory_obj is not None:
        from crewgraph.nodes.memory_recall import MemoryRecallNode

        recall_id = f"{key}.recall"
        graph.add_node(
            MemoryRecallNode(
                id=recall_id,
                label=f"recall: {name}",
                task_name=name,
                query=task.description,
                memory=memory_obj if memory_obj is not True else None,
            )
        )
        first = recall_id
    structured = task.structured_model
    agent_node = AgentStepNode(
        id=f"{key}.agent",
        label=name,
        task_name=name,
        description=task.description,
        expected_output=task.expected_output,
        agent_role=agent.role,
        agent_goal=agent.goal,
        agent_backstory=agent.backstory,
        system_template=agent.system_template,
        llm=llm,
        tools=tuple(tools),
        max_iter=agent.max_iter,
        context_nodes=tuple(context_nodes),
        memory_node=recall_id,
        tool_policies=(task.tool_failure_policy, agent.tool_failure_policy, getattr(crew, "tool_failure_policy", None)),
        cache=bool(agent.cache),
        rpm_keys=rpm_keys,
        output_schema=structured.model_json_schema() if structured is not None else None,
        human_input=task.human_input,
        step_callbacks=tuple(cb for cb in (agent.step_callback, getattr(crew, "step_callback", None)) if cb),
        retry=RetryPolicy(max_attempts=1 + agent.max_retry_limit, initial_delay=1.0, max_delay=20.0),
        timeout=TimeoutPolicy(agent.max_execution_time),
    )
    graph.add_node(agent_node, task=key)
    if recall_id is not None:
        graph.add_edge(recall_id, agent_node.id, kind="memory")
    for tool in tools:
        from crewgraph.nodes.tool_call import ToolTemplateNode

        tid = f"{key}.tool.{slugify(tool.name, 30)}"
        if tid not in graph:
            graph.add_node(ToolTemplateNode(id=tid, label=tool.name, tool=tool), task=key)
        graph.add_edge(agent_node.id, tid, kind="may_call")
    final = agent_node.id
    redo: list[Node] = [agent_node]
    if structured is not None:
        convert = ConvertNode(
            id=f"{key}.convert",
            label=f"{structured.__name__}",
            task_name=name,
            source_node=agent_node.id,
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
            agent_role=agent.role,
            source_node=final,
            memory=memory_obj if memory_obj is not True else None,
        )
        graph.add_node(save, task=key)
        graph.add_edge(final, save.id, kind="memory")
    return TaskPlan(key=key, name=name, first=first, agent=agent_node.id, final=final, index=index)


def _rpm_keys(crew: Any, agent: Agent) -> tuple[str, ...]:
    keys: list[str] = []
    if agent.max_rpm:
        keys.append(f"agent:{agent.id}")
    if getattr(crew, "max_rpm", None):
        keys.append("crew")
    return tuple(keys)


def _agent_memory(crew: Any, agent: Agent) -> Any:
    """The agent's own memory object, else True when the crew has memory, else None."""
    own = agent.memory
    if own is False:
        return None
    if own is not None and own is not True:
        return own
    return True if getattr(crew, "memory_enabled", False) else None


def _saves_memory(memory_obj: Any) -> bool:
    return not getattr(memory_obj, "read_only", False)


def _delegation_tools(crew: Any, agent: Agent) -> list[Any]:
    if not agent.allow_delegation:
        return []
    if not any(a.id != agent.id for a in crew.agents):
        return []
    from crewgraph.tools.delegation import delegation_tools

    return list(delegation_tools(crew.agents, delegator=agent))
