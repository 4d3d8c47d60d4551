"""Wiring a ``ConditionalTask`` into a crew's plan (see ``nodes/condition.py``).

``tk.condition`` waits for what the task's first nodes wait for (and for the
previous task), then routes ``run`` into every entry node of the task's chain
or ``skip`` straight to ``tk.result``; ``tk.result`` (join ``any_once``) is the
task's final node, so later tasks depend on one node either way.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from crewgraph.graph.execution_graph import NON_EXECUTION_EDGES, ExecutionGraph
from crewgraph.nodes.condition import RUN, SKIP, ConditionNode, TaskResultNode

__all__ = ["add_condition", "gate_entries", "is_conditional"]


def is_conditional(task: Any) -> bool:
    """Whether ``task`` carries a callable ``condition`` (a ``ConditionalTask``).

    A pydantic model without a ``condition`` field is answered from its class's
    ``model_fields``: ``getattr`` of a missing name falls into pydantic's slow
    ``BaseModel.__getattr__`` (private attributes, then extras), which was a
    measurable part of compiling a 10,000-task crew, called twice per task (and
    ``type(task).model_fields`` is a descriptor that costs more than that)."""
    fields = getattr(type(task), "__pydantic_fields__", None)  # model_fields is a slow descriptor
    if isinstance(fields, dict):
        if "condition" not in fields:
            return False
        condition = task.__dict__.get("condition")
    else:
        condition = getattr(task, "condition", None)
    return condition is not None and callable(condition)


def add_condition(graph: ExecutionGraph, task: Any, plan: Any, previous_final: str) -> Any:
    """Add ``tk.condition`` and ``tk.result`` around the task's chain; returns the plan with
    ``final`` moved to ``tk.result``."""
    key = plan.key
    cond = ConditionNode(
        id=f"{key}.condition",
        label=f"if {getattr(task.condition, '__name__', 'condition')}",
        condition=task.condition,
        previous=previous_final,
        task_name=plan.name,
        description=task.description,
        expected_output=task.expected_output,
        agent_role=task.agent.role if task.agent is not None else "",
    )
    graph.add_node(cond, task=key)
    graph.add_edge(previous_final, cond.id, kind="condition")
    result = TaskResultNode(id=f"{key}.result", label=f"result: {plan.name}", task_name=plan.name)
    graph.add_node(result, task=key, join="any_once")
    graph.add_edge(plan.final, result.id, kind="order")
    graph.add_edge(cond.id, result.id, kind="skip", route=SKIP)
    return dataclasses.replace(plan, final=result.id)


def gate_entries(graph: ExecutionGraph, plan: Any) -> None:
    """Route ``run`` from the condition into each node of the task that other tasks feed, and
    make the condition wait for those same feeds."""
    key = plan.key
    cond = f"{key}.condition"
    own = {n for n in graph.digraph.nodes if n.startswith(key + ".")}
    for nid in sorted(own - {cond, plan.final}):
        if graph.node(nid).plan_only:
            continue
        feeds = [
            u for u, _, kind in graph.digraph.in_edges(nid, data="kind")
            if u not in own and kind not in NON_EXECUTION_EDGES
        ]
        if not feeds and any(u in own for u, _ in graph.digraph.in_edges(nid)):
            continue  # fed only from inside the task: runs after the gated entry
        for u in feeds:
            if not graph.digraph.has_edge(u, cond):
                graph.add_edge(u, cond, kind="order")
        graph.add_edge(cond, nid, kind="condition", route=RUN)
