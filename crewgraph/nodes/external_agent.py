"""``external_agent``: a task done by a third-party agent (a ``BaseAgent`` that is not ``Agent``),
or by an ``Agent`` whose ``execute_task``/``aexecute_task`` a subclass or a patch replaces.

CrewAI's contract for such agents is ``execute_task(task, context, tools) -> str``;
this node is where the graph calls it. The agent object is user code, so the
node holds it (as a ``flow_method`` node holds its function) together with
the task definition the contract passes; everything else is configuration.
A guardrail that rejects the answer re-runs this node with the reason added
to the context, as it re-runs an agent step with feedback. The answer then
flows through the task's convert / guardrail / memory nodes like any other.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from crewgraph._internal import execution_vars
from crewgraph._internal.interpolate import interpolate
from crewgraph.events.agent_events import AgentExecutionCompletedEvent, AgentExecutionStartedEvent
from crewgraph.events.crew_events import TaskStartedEvent
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.reads import Reads
from crewgraph.nodes._context import context_entry, prefix_context
from crewgraph.nodes._prompts import format_context
from crewgraph.outputs import TaskOutput

__all__ = ["ExternalAgentNode"]


@dataclass(frozen=True, kw_only=True)
class ExternalAgentNode(Node):
    """Calls ``agent.execute_task(task, context, tools)`` (in a thread unless it is a coroutine)."""

    kind: ClassVar[str] = "external_agent"

    agent: Any
    task: Any
    task_name: str
    agent_role: str
    tools: tuple[Any, ...] = ()
    context_nodes: Sequence[str] = ()
    memory_node: str | None = None
    llm: Any = None
    """The model later convert/guardrail nodes use (the agent's ``llm``, else the crew's)."""
    rpm_keys: tuple[str, ...] = ()
    feedback: str | None = None
    previous_output: str | None = None
    base_messages: tuple[dict[str, Any], ...] = ()
    """Accepted for a guardrail's redo (an agent step's field); a third-party agent has no prompt."""
    method: str = "execute_task"
    """The agent's method this node calls: ``execute_task``, or ``aexecute_task`` when that is the
    one a subclass overrides (the compiler decides)."""

    def reads(self) -> Reads:
        """Its memory node (upstream, whole), its context tasks' outputs as text only."""
        return Reads(upstream=(self.memory_node,) if self.memory_node else (), texts=self.context_nodes)

    async def run(self, ctx: NodeContext) -> NodeResult:
        task = self.task.model_copy(
            update={
                "description": interpolate(self.task.description, ctx.inputs),
                "expected_output": interpolate(self.task.expected_output, ctx.inputs),
            }
        )
        context = self._context(ctx)
        # the names as the run filled them in ("research cats", not "research {topic}")
        task_name, agent_role = interpolate(self.task_name, ctx.inputs), interpolate(self.agent_role, ctx.inputs)
        if not self.feedback:
            from crewgraph.hooks.steps import pre_step

            context = await pre_step(ctx.state.extras, task_name=task_name, agent_role=agent_role,
                                     context=context, task=self.task, agent=self.agent)
            ctx.emit(TaskStartedEvent(task_name=task_name, agent_role=agent_role, context=context or None))
        ctx.emit(
            AgentExecutionStartedEvent(
                agent_role=agent_role,
                task_name=task_name,
                task_prompt=task.description,
                tools=[getattr(t, "name", str(t)) for t in self.tools],
            )
        )
        tools = list(self.tools)
        execute = getattr(self.agent, self.method)
        token = execution_vars.current_task_id.set(str(self.task.id))
        try:
            if inspect.iscoroutinefunction(execute):
                answer = await execute(task, context or None, tools)
            else:
                answer = await asyncio.to_thread(execute, task, context or None, tools)
        finally:
            execution_vars.current_task_id.reset(token)
        text = answer if isinstance(answer, str) else str(getattr(answer, "raw", answer))
        ctx.emit(AgentExecutionCompletedEvent(agent_role=agent_role, task_name=task_name, output=text))
        output = TaskOutput(
            description=task.description,
            name=task_name,
            expected_output=task.expected_output,
            raw=text,
            agent=agent_role,
        )
        return NodeResult(output=output, info={"agent_class": type(self.agent).__name__})

    def _context(self, ctx: NodeContext) -> str:
        if isinstance(self.context_nodes, NodePrefix):
            text = prefix_context(ctx, self.context_nodes)
        else:
            text = format_context([e for nid in self.context_nodes if (e := context_entry(ctx, nid))])
        if self.memory_node is not None and ctx.upstream.get(self.memory_node):
            text = "\n\n".join(p for p in (text, f"Relevant memories:\n{ctx.upstream[self.memory_node]}") if p)
        if self.feedback:
            previous = f"Your previous answer was:\n{self.previous_output}\n\n" if self.previous_output else ""
            text = "\n\n".join(
                p for p in (text, f"{previous}It was not accepted: {self.feedback}\nCorrect it and answer again.") if p
            )
        return text

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, agent=self.agent_role, agent_class=type(self.agent).__name__,
                 tools=[getattr(t, "name", str(t)) for t in self.tools])
        return d
