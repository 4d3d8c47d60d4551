"""The agent step's tool turns (a mixin of :class:`~crewgraph.nodes.agent_step.AgentStepNode`).

A turn whose reply asks for tools spawns one child node per distinct call (a tool call, or a
coworker's step for a delegation tool); the step resumes with their outcomes, each appended
as a tool message (or an ``Observation:`` in the text protocol). What the calls gave is
counted per tool, so a step whose every call failed or returned nothing is reported as not
grounded rather than as a plain success.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import NodeResult
from crewgraph.graph.policies import TimeoutPolicy
from crewgraph.ids import slugify
from crewgraph.nodes import _call_plan as call_plan
from crewgraph.nodes import _text_tools as text_tools
from crewgraph.outputs import UsageMetrics

__all__ = ["ToolTurns", "grounding"]


class ToolTurns:
    """Tool calls of a node with the agent step's tool fields, over a loop with ``messages``,
    ``pending`` and the call counts."""

    id: str
    tools: tuple[Any, ...]
    agent_role: str
    task_name: str
    task_id: str | None
    tool_policies: tuple[Any, ...]
    cache: bool
    max_tool_result_chars: int | None

    _again: Callable[[NodeContext, Any, UsageMetrics], Awaitable[NodeResult]]
    """The step's next turn (``AgentStepNode._again``)."""

    async def _spawn(self, ctx: NodeContext, loop: Any, calls: Sequence[Any], step_usage: UsageMetrics,
                     call_format: str = "") -> NodeResult:
        """Run the turn's tool calls as child nodes, each distinct call once: a call the same reply
        repeats shares the first one's result, and a call an earlier turn already made with the
        same arguments is answered from that result with a reminder instead of running again."""
        plan = call_plan.plan(calls, loop.seen_results or {})
        children = self._tool_nodes(plan.to_run, loop.iteration, loop, call_format=call_format)
        node_ids = [c.id for c in children]
        loop.pending = plan.pending(node_ids)
        if plan.replies:
            loop.replayed = {**(loop.replayed or {}), **plan.replies}
        loop.duplicate_calls += plan.duplicates
        loop.repeated_calls += len(plan.replies)
        if not children:  # every call was answered from an earlier result: straight to the next turn
            return await self._again(ctx, loop, step_usage)
        return NodeResult(spawn=list(children), resume=loop, usage=step_usage)

    def _tool_nodes(
        self, calls: Sequence[Any], iteration: int, loop: Any = None, call_format: str = ""
    ) -> list[Any]:
        from crewgraph.nodes.tool_call import ToolCallNode
        from crewgraph.tools._names import find_tool

        by_name: dict[str, Any] = {}
        for tool in self.tools:
            by_name.setdefault(tool.to_spec().name.lower(), tool)
            by_name.setdefault(str(tool.name).lower(), tool)
        available = tuple(t.to_spec().name for t in self.tools)
        from crewgraph.nodes.manager_step import delegated_step

        parent: Any = self  # an AgentStepNode: the delegated step copies its settings
        return [
            # A valid call of a delegation tool runs the coworker as a child agent step.
            delegated_step(parent, by_name.get(call.name.lower()), call, f"{self.id}.it{iteration}.{k}")
            or ToolCallNode(
                id=f"{self.id}.it{iteration}.{k}.{slugify(call.name, 24)}",
                label=f"{call.name}()",
                call=call,
                tool=by_name.get(call.name.lower()) or find_tool(self.tools, call.name),
                available=available,
                agent_role=self.agent_role,
                task_name=self.task_name,
                task_id=self.task_id,
                policies=self.tool_policies,
                cache=self.cache,
                max_result_chars=self.max_tool_result_chars,
                timeout=self._time_left(loop),
                call_format=call_format,
            )
            for k, call in enumerate(calls)
        ]

    def _time_left(self, loop: Any) -> TimeoutPolicy:
        """A tool call may use what is left of the task's ``max_execution_time`` (or no limit)."""
        if loop is None or loop.deadline is None:
            return TimeoutPolicy()
        return TimeoutPolicy(max(loop.deadline - time.monotonic(), 0.001))

    def _absorb_tools(self, loop: Any, ctx: NodeContext) -> str | None:
        """Append each tool outcome as a tool message; return a final answer if one is forced."""
        final: str | None = None
        absorbed: set[str] = set()
        for entry in loop.pending:
            node_id, call_id, name = entry[:3]
            key = entry[3] if len(entry) > 3 else None
            if node_id == call_plan.REPLAYED:
                self._tool_message(loop, call_id, name, (loop.replayed or {}).pop(call_id, ""))
                continue
            outcome = ctx.spawned.get(node_id)
            text = getattr(outcome, "text", None)
            if text is None:  # a coworker's answer (delegation): capped like a tool result
                from crewgraph.tools._result_cap import cap_result, result_limit

                text = cap_result(str(outcome), result_limit(None, self.max_tool_result_chars))
            failure = getattr(outcome, "failure", None)
            if failure is None and key is not None:
                if key in (loop.seen_results or {}):  # run again (not cached): say so all the same
                    text = f"{text}\n{call_plan.AGAIN_NOTE}"
                reusable = bool(getattr(outcome, "reusable", False))
                loop.seen_results = {**(loop.seen_results or {}), key: (text, reusable)}
            self._tool_message(loop, call_id, name, text)
            if failure is not None and node_id not in absorbed:
                loop.tool_failures.append(failure)
            if node_id not in absorbed:  # copies of one call in a reply ran once: count it once
                counts = loop.tool_outcomes.setdefault(name, [0, 0, 0])
                counts.extend([0] * (3 - len(counts)))  # a loop checkpointed before empties were counted
                counts[0] += 1
                counts[1] += failure is not None
                counts[2] += failure is None and not str(text).strip()
            absorbed.add(node_id)
            if getattr(outcome, "result_as_answer", False) and final is None:
                final = text
        loop.pending = []
        return final

    @staticmethod
    def _tool_message(loop: Any, call_id: str, name: str, text: str) -> None:
        if loop.text_mode:
            loop.messages.append(text_tools.observation_message(text))
        else:
            loop.messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": text})


def grounding(outcomes: dict[str, list[int]]) -> tuple[bool | None, str]:
    """Whether the step's answer rests on its tools' results, and the warning to show.

    A tool that failed on every call is a warning (the task went on without it); a step whose
    every call failed or returned nothing is not grounded, and its warning says so, since its
    answer can only be the model's own invention. None: no tool was called."""
    if not outcomes:
        return None, ""
    counts = [(name, c[0], c[1], c[2] if len(c) > 2 else 0) for name, c in outcomes.items()]
    useful = sum(calls - failed - empty for _, calls, failed, empty in counts)
    broken = [f"{name!r} ({calls} call{'s' if calls > 1 else ''})"
              for name, calls, failed, _ in counts if calls and failed == calls]
    warning = f"tool {', '.join(broken)} failed on every call" if broken else ""
    if useful > 0:
        return True, warning
    empty = [f"{name!r} ({calls} call{'s' if calls > 1 else ''})"
             for name, calls, failed, none in counts if calls and failed < calls and failed + none == calls]
    if empty:
        warning += ("; " if warning else "") + f"tool {', '.join(empty)} returned nothing"
    return False, f"{warning}; not grounded: the answer rests on no tool result"
