"""``Crew(planning=True)``: add a ``planning`` node in front of the compiled tasks.

The planning node runs first; an edge (kind ``planning``) joins it to every
task's agent (or manager) step, whose ``plan_node``/``plan_key`` tell it where
to read its plan from, and the plan lands in that step's prompt ("Plan for
this task: ..."). Steps that are spawned later from these templates (a
guardrail's redo) keep the fields and read the plan from the run state.
Applied after sequential, parallel and hierarchical compilation alike.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node
from crewgraph.graph.policies import RetryPolicy
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.nodes.planning import PlannedTask, PlanningNode

__all__ = ["PLANNING_NODE_ID", "add_planning"]

PLANNING_NODE_ID = "planning"


def add_planning(graph: ExecutionGraph, crew: Any) -> ExecutionGraph:
    """Insert the planning node into ``graph`` (in place) and point each task's step at it."""
    plans = graph.meta.get("tasks", [])
    planned = tuple(_planned_task(crew, plan) for plan in plans)
    node = PlanningNode(
        id=PLANNING_NODE_ID,
        label="Plan the tasks",
        tasks=planned,
        llm=getattr(crew, "planning_llm", None),
        rpm_keys=("crew",) if getattr(crew, "max_rpm", None) else (),
        retry=RetryPolicy(max_attempts=3, initial_delay=1.0, max_delay=20.0),
    )
    graph.add_node(node)
    for plan in plans:
        step_id = plan["agent"]
        graph.replace_node(_with_plan(graph.node(step_id), plan["key"]))
        graph.add_edge(PLANNING_NODE_ID, step_id, kind="planning")
        for nid in list(graph.digraph.nodes):  # guardrails hold copies of the step for redos
            if nid.startswith(plan["key"] + "."):
                held: Any = graph.node(nid)
                redo = getattr(held, "redo", None)
                if redo:
                    fixed = tuple(_with_plan(n, plan["key"]) for n in redo)
                    graph.replace_node(dataclasses.replace(held, redo=fixed))
    graph.meta["planning"] = PLANNING_NODE_ID
    return graph


def _with_plan(node: Node, key: str) -> Node:
    if isinstance(node, AgentStepNode):
        return dataclasses.replace(node, plan_node=PLANNING_NODE_ID, plan_key=key)
    return node


def _planned_task(crew: Any, plan: dict[str, Any]) -> PlannedTask:
    task = crew.tasks[plan["index"]]
    agent = task.agent
    tools = [t.name for t in (task.tools or (agent.tools if agent is not None else []) or [])]
    return PlannedTask(
        key=plan["key"],
        description=task.description,
        expected_output=task.expected_output,
        agent_role=agent.role if agent is not None else "",
        agent_goal=agent.goal if agent is not None else "",
        tools=tuple(tools),
    )
