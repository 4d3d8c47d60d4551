"""``manager_step`` nodes and delegated ``agent_step`` children.

In a hierarchical crew every task is a :class:`ManagerStepNode`: the manager
agent works the task like any agent step, but its tools are the delegation
tools, and it does the work *through* its coworkers. Delegation is not a
tool call like others: each valid "Delegate work to coworker" / "Ask question
to coworker" call becomes the coworker's own :class:`DelegatedStepNode`,
spawned as a child of the delegating step, so the coworker's LLM turns, tool
calls, retries and failures show up in the run graph under the manager
(sequential agents with ``allow_delegation=True`` get the same behaviour,
since the interception lives in :class:`AgentStepNode`). The coworker's
answer (a TaskOutput) goes back to the delegating model as the tool result.

A call with bad arguments (unknown coworker, missing task) is *not*
spawned: it runs as a normal tool call, whose schema validation sends the
model a message naming the valid coworkers, and the run carries on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import ValidationError

from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.ids import slugify
from crewgraph.llm.types import ToolCall
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.tools.delegation import DELEGATED_EXPECTED_OUTPUT, Delegation, DelegationTool

__all__ = ["DelegatedStepNode", "ManagerStepNode", "coworker_node", "delegated_step", "run_delegation"]

_ANSWER_EXPECTED = "A clear, complete answer to your coworker's question, accounting for the context shared."


@dataclass(frozen=True, kw_only=True)
class ManagerStepNode(AgentStepNode):
    """One task of a hierarchical crew, worked by the manager through its coworkers."""

    kind: ClassVar[str] = "manager_step"

    coworker_roles: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["coworkers"] = list(self.coworker_roles)
        return d


@dataclass(frozen=True, kw_only=True)
class DelegatedStepNode(AgentStepNode):
    """A coworker's work on a delegated task or question, spawned by the delegating step.

    ``call`` is the delegation tool call it answers (the parent's tool loop
    matches the result to it); ``delegated_by`` is the delegating role.
    """

    call: ToolCall
    delegated_by: str = ""
    mode: str = "delegate"

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(delegated_by=self.delegated_by, mode=self.mode)
        return d


def delegated_step(parent: AgentStepNode, tool: Any, call: ToolCall, base_id: str) -> DelegatedStepNode | None:
    """The coworker's step for a valid delegation ``call``; None if ``tool`` is not a delegation
    tool or the arguments are invalid (then the caller runs it as a tool call that explains why)."""
    if not isinstance(tool, DelegationTool):
        return None
    try:
        delegation = tool.resolve(call.parsed_arguments())
    except (ValueError, ValidationError):
        return None
    node_id = f"{base_id}.{delegation.mode}.{slugify(delegation.coworker.role, 24)}"
    return coworker_node(delegation, node_id=node_id, call=call, parent=parent)


def coworker_node(
    delegation: Delegation, *, node_id: str, call: ToolCall, parent: AgentStepNode | None = None
) -> DelegatedStepNode:
    """Build the coworker's step from its resolved configuration.

    Rate limits: the coworker's own, plus the crew's when the delegating step
    is under it. Tool failure policy chain: (no task policy, the coworker's,
    the crew's as the delegating step sees it).
    """
    cw = delegation.coworker
    crew_rpm = parent is not None and "crew" in parent.rpm_keys
    rpm_keys = tuple(k for k in (cw.rpm_key, "crew" if crew_rpm else None) if k)
    crew_policy = parent.tool_policies[2] if parent is not None and len(parent.tool_policies) > 2 else None
    task = parent.task_name if parent is not None else "delegation"
    request = " ".join(delegation.request.split())
    return DelegatedStepNode(
        id=node_id,
        label=f"{cw.role}: {request[:40]}{'...' if len(request) > 40 else ''}",
        task_name=f"{task} (delegated to {cw.role})",
        description=delegation.description(),
        expected_output=DELEGATED_EXPECTED_OUTPUT if delegation.mode == "delegate" else _ANSWER_EXPECTED,
        agent_role=cw.role,
        agent_goal=cw.goal,
        agent_backstory=cw.backstory,
        system_template=cw.system_template,
        llm=cw.llm,
        tools=cw.tools,
        max_iter=cw.max_iter,
        tool_policies=(None, cw.tool_failure_policy, crew_policy),
        cache=cw.cache,
        rpm_keys=rpm_keys,
        step_callbacks=(cw.step_callback,) if cw.step_callback is not None else (),
        retry=RetryPolicy(max_attempts=1 + cw.max_retry_limit, initial_delay=1.0, max_delay=20.0),
        timeout=TimeoutPolicy(cw.max_execution_time),
        call=call,
        delegated_by=parent.agent_role if parent is not None else "",
        mode=delegation.mode,
    )


async def run_delegation(delegation: Delegation) -> str:
    """Run a delegation outside any crew run (a delegation tool called directly from Python)."""
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.runtime import Scheduler

    call = ToolCall(id="direct", name=delegation.mode)
    node = coworker_node(delegation, node_id=f"delegate.{slugify(delegation.coworker.role, 24)}", call=call)
    graph = ExecutionGraph(name="delegation")
    graph.add_node(node)
    result = await Scheduler(graph).run()
    output = result.outputs[node.id]
    return str(getattr(output, "raw", output))
