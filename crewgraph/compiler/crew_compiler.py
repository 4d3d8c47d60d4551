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
from collections.abc import Sequence
from typing import Any, cast

from crewgraph._internal.gc_scope import run_collector
from crewgraph.compiler._conditional import add_condition, gate_entries, is_conditional
from crewgraph.compiler._external_tools import with_mcp_tools
from crewgraph.compiler._knowledge import add_knowledge, knowledge_of
from crewgraph.compiler._task_chain import (
    add_output_chain,
    add_reasoning,
    add_recall,
    add_tool_templates,
    agent_fields,
    agent_memory,
    agent_tools,
    rpm_keys,
    task_step_fields,
)
from crewgraph.compiler._training import is_training
from crewgraph.compiler.validate import task_label, validate_crew
from crewgraph.errors import CompileError
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import NodeTemplate
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.ids import slugify
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.nodes.external_agent import ExternalAgentNode
from crewgraph.spec._execute_override import overridden, routes_through_execute_task
from crewgraph.spec.agent import Agent
from crewgraph.spec.process import Process
from crewgraph.spec.task import Task

__all__ = ["TaskPlan", "compile_crew", "task_key"]


@dataclasses.dataclass(frozen=True, slots=True)
class TaskPlan:
    """Where one task lives in the graph."""

    key: str
    name: str
    first: str
    agent: str
    final: str
    index: int

    def as_dict(self) -> dict[str, Any]:
        """The plan as ``graph.meta["tasks"]`` holds it. Written out: ``dataclasses.asdict``
        deep-copies each field through its recursive walker, a tenth of a 10,000-task compile."""
        return {"key": self.key, "name": self.name, "first": self.first, "agent": self.agent,
                "final": self.final, "index": self.index}


def task_key(task: Task, index: int) -> str:
    return f"t{index + 1}_{slugify(task.name or task.description, 24)}"


def compile_crew(crew: Any, inputs: dict[str, Any] | None = None) -> ExecutionGraph:
    """Validate ``crew`` and build its plan. Raises CompileError before any LLM call."""
    with run_collector():  # a plan is thousands of long-lived objects: no full pass per quarter
        return _compile_crew(crew, inputs)


def _compile_crew(crew: Any, inputs: dict[str, Any] | None) -> ExecutionGraph:
    validate_crew(crew, inputs)
    process = Process(crew.process)
    if process == Process.hierarchical:
        from crewgraph.compiler.hierarchical import compile_hierarchical

        return compile_hierarchical(crew, inputs)
    graph = ExecutionGraph(name=getattr(crew, "name", None) or "crew")
    tasks: list[Task] = list(crew.tasks)
    # Keyed by each task's id as its int: the same key as the UUID (a UUID hashes and compares
    # its int), hashed in C, where UUID.__hash__ is a Python call (four lookups per task).
    plans: dict[int, TaskPlan] = {}
    sequential = process == Process.sequential
    # A sequential task's default context is every earlier task (an async task: every task
    # up to the last synchronous one, since the async ones before it run beside it). Both
    # are prefixes of the tasks' final nodes, so each task keeps a NodePrefix of `finals`
    # and gets edges only from its barrier: linear in the number of tasks, where an edge
    # per (earlier task, task) pair was quadratic to build and to check for cycles.
    finals: list[str] = []
    visible = 0  # tasks finished before the current barrier (a prefix length)
    last_sync: list[Task] = []  # the barrier: the previous synchronous task
    pending_async: list[Task] = []
    agent_parts: dict[int, _AgentPart] = {}  # each agent's step fields, built once per compile
    gated: set[int] = set()  # ids of the conditional tasks
    for i, task in enumerate(tasks):
        if sequential:
            order_preds = last_sync if task.async_execution else [*last_sync, *pending_async]
        else:
            order_preds = []
        if task.context is not None:
            context_tasks = list(task.context)
            context_ids: Sequence[str] = [plans[t.id.int].final for t in context_tasks if t.id.int in plans]
        else:
            context_tasks = order_preds
            context_ids = NodePrefix(finals, visible if task.async_execution else i) if sequential else ()
        plan = _task_nodes(graph, crew, task, i, context_ids, agent_parts)
        conditional = is_conditional(task)
        own_id = task.id.int
        if conditional:  # validated: never the first task
            gated.add(own_id)
            plan = add_condition(graph, task, plan, plans[tasks[i - 1].id.int].final)
        plans[own_id] = plan
        finals.append(plan.final)
        for pred in order_preds:
            if pred not in context_tasks:
                graph.add_edge(plans[pred.id.int].final, plan.agent, kind="order")
        for ctx_task in context_tasks:
            ctx_id = ctx_task.id.int
            if ctx_id in plans and ctx_id != own_id:  # later tasks are wired after the loop
                graph.add_edge(plans[ctx_id].final, plan.agent, kind="context", implicit=task.context is None)
        if plan.first != plan.agent:
            for pred in order_preds:
                # Recall after the previous task's memory save has queued its facts (recall is
                # a read barrier), so the next task sees what the last one learned.
                pred_plan = plans[pred.id.int]
                saved = f"{pred_plan.key}.save"
                src = saved if saved in graph and pred.id.int not in gated else pred_plan.final
                graph.add_edge(src, plan.first, kind="memory" if src == saved else "order")
        if conditional:
            gate_entries(graph, plan)
        if sequential:
            if task.async_execution:
                pending_async.append(task)
            else:
                visible = i + 1
                last_sync, pending_async = [task], []
    _wire_forward_context(graph, tasks, plans)
    _check_acyclic(graph, tasks, plans)
    graph.meta.update(
        kind="crew",
        process=process.value,
        tasks=[plans[t.id.int].as_dict() for t in tasks],
        final=plans[tasks[-1].id.int].final,
    )
    return graph


def _wire_forward_context(graph: ExecutionGraph, tasks: list[Task], plans: dict[int, TaskPlan]) -> None:
    """Context on a task that comes later in the list: allowed if it makes no cycle."""
    for task in tasks:
        for ctx_task in task.context or []:
            src, dst = plans[ctx_task.id.int].final, plans[task.id.int].agent
            if not graph.digraph.has_edge(src, dst):
                graph.add_edge(src, dst, kind="context")
                node = graph.node(dst)
                if isinstance(node, AgentStepNode | ExternalAgentNode) and src not in node.context_nodes:
                    graph.replace_node(dataclasses.replace(node, context_nodes=(*node.context_nodes, src)))


def _check_acyclic(graph: ExecutionGraph, tasks: list[Task], plans: dict[int, TaskPlan]) -> None:
    cycle = graph.digraph.find_cycle()
    if cycle is None:
        return
    owner = {}
    for i, t in enumerate(tasks):
        for nid in graph.digraph.nodes:
            if nid.startswith(plans[t.id.int].key + "."):
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


@dataclasses.dataclass(frozen=True, slots=True)
class _AgentPart:
    """What a step takes from its agent and the crew alone: built once per agent per compile.

    ``steps`` holds the agent's fields merged with the step's defaults, so a task's step is one
    copy of that dict with the task's fields over it (every step keeps its own field values,
    so ``dataclasses.replace``, pickling, checkpoints and exports see the node they always did).
    The flags say which of a task's optional pieces the agent can have at all, so a task skips
    the calls that would each find there is nothing to add."""

    fields: dict[str, Any]  # agent_fields(crew, agent)
    memory: Any  # agent_memory(crew, agent)
    knowledge: list[Any]  # knowledge_of(crew, agent)
    steps: NodeTemplate[AgentStepNode]  # AgentStepNode.template(fields)
    mcps: bool  # the agent lists MCP servers (with_mcp_tools adds their tools)
    delegates: bool  # it may delegate here (_delegation_tools may add tools)
    reasons: bool  # it plans before each task (add_reasoning adds a node)

    @classmethod
    def of(cls, crew: Any, agent: Agent) -> _AgentPart:
        shared = agent_fields(crew, agent)
        return cls(shared, agent_memory(crew, agent), knowledge_of(crew, agent), AgentStepNode.template(shared),
                   mcps=bool(getattr(agent, "mcps", None)), delegates=bool(agent.allow_delegation),
                   reasons=bool(agent.planning_enabled))


def _task_nodes(
    graph: ExecutionGraph, crew: Any, task: Task, index: int, context_nodes: Sequence[str],
    agent_parts: dict[int, _AgentPart],
) -> TaskPlan:
    key = task_key(task, index)
    name = task.name or task.display_name()
    part = agent_parts.get(id(task.agent))  # an agent seen before in this compile is on the engine
    if part is None and (not isinstance(task.agent, Agent) or routes_through_execute_task(task.agent)):
        return _external_task_nodes(graph, crew, task, key, name, index, context_nodes)
    agent = cast(Agent, task.agent)  # checked above, or when its part was built
    if part is None:
        part = agent_parts[id(agent)] = _AgentPart.of(crew, agent)
    tools = agent_tools(task, agent)
    if part.mcps:
        tools = with_mcp_tools(tools, agent, task, index)
    if part.delegates:
        tools.extend(_delegation_tools(crew, agent))
    memory_obj = part.memory
    recall_id = add_recall(graph, key, name, task, memory_obj) if memory_obj is not None else None
    knowledge_id = add_knowledge(graph, key, name, task, crew, agent, part.knowledge) if part.knowledge else None
    fields = task_step_fields(task, name, tools, context_nodes, recall_id, part.fields)
    step_id = f"{key}.agent"
    fields["id"], fields["knowledge_node"] = step_id, knowledge_id
    step = part.steps.build(fields)  # AgentStepNode(**part.fields, **fields), without its 40 __setattr__ calls
    graph.add_node(step, task=key)
    if recall_id is not None:
        graph.add_edge(recall_id, step_id, kind="memory")
    if knowledge_id is not None:
        graph.add_edge(knowledge_id, step_id, kind="knowledge")
    if part.reasons:
        add_reasoning(graph, crew, task, agent, step)
    if tools:
        add_tool_templates(graph, key, step_id, tools)
    final = add_output_chain(graph, task, key, name, step, memory_obj)
    return TaskPlan(key, name, recall_id or step_id, step_id, final, index)


def _external_task_nodes(
    graph: ExecutionGraph, crew: Any, task: Task, key: str, name: str, index: int, context_nodes: Sequence[str]
) -> TaskPlan:
    """A task whose agent is a third-party ``BaseAgent``: an ``external_agent`` node calling its
    ``execute_task``, then the same output chain as any task.

    An ``Agent`` gets here when its ``execute_task`` is overridden or patched (CrewAI's seam): the
    override is the agent's whole work, memory included (the default, reached through ``super()``,
    recalls and saves), so no memory nodes are added around it."""
    agent: Any = task.agent
    tools = list(task.tools or agent.tools or [])
    if not isinstance(agent, Agent):  # an Agent's own work (through super()) adds its MCP tools itself
        tools = with_mcp_tools(tools, agent, task, index)
    tools.extend(_delegation_tools(crew, agent))
    own_seam = isinstance(agent, Agent)
    memory_obj = None if own_seam else agent_memory(crew, agent)
    method = "aexecute_task" if (own_seam and not overridden(agent, "execute_task")) else "execute_task"
    recall_id = add_recall(graph, key, name, task, memory_obj)
    step = ExternalAgentNode(
        id=f"{key}.agent",
        label=name,
        agent=agent,
        task=task,
        task_name=name,
        agent_role=agent.role,
        tools=tuple(tools),
        context_nodes=context_nodes,
        memory_node=recall_id,
        llm=agent.llm if agent.llm is not None else getattr(crew, "llm", None),
        rpm_keys=rpm_keys(crew, agent),
        method=method,
    )
    graph.add_node(step, task=key)
    if recall_id is not None:
        graph.add_edge(recall_id, step.id, kind="memory")
    add_tool_templates(graph, key, step.id, tools)
    final = add_output_chain(graph, task, key, name, step, memory_obj)
    return TaskPlan(key=key, name=name, first=recall_id or step.id, agent=step.id, final=final, index=index)


def _delegation_tools(crew: Any, agent: Any) -> list[Any]:
    """``agent.get_delegation_tools(coworkers)`` (BaseAgent's contract) for a delegating agent.

    A delegated task runs as an agent step built from the coworker's fields, so a
    third-party agent (whose work is its own ``execute_task``) cannot be delegated to."""
    if not agent.allow_delegation or is_training(crew):  # CrewAI trains without delegation
        return []
    coworkers = [a for a in crew.agents if a.id != agent.id]
    if not coworkers:
        return []
    external = [a.role for a in coworkers if not isinstance(a, Agent)]
    if external:
        raise CompileError(
            f"agent {agent.role!r} may delegate (allow_delegation=True), but its coworker(s) "
            f"{', '.join(map(repr, external))} are third-party agents (BaseAgent subclasses) that "
            "crewgraph cannot delegate to; set allow_delegation=False or use Agent coworkers"
        )
    return list(agent.get_delegation_tools(coworkers))
