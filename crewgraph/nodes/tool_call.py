"""``tool`` nodes: a tool the agent may call (plan template) and one actual invocation.

The agent step spawns one :class:`ToolCallNode` per tool call the model asks
for in a turn (the scheduler runs them concurrently), then reads each
:class:`ToolCallOutcome` from ``ctx.spawned[node.id]`` when it resumes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from crewgraph._internal import execution_vars
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy
from crewgraph.llm.types import ToolCall
from crewgraph.tools._errors import RetryableToolError

if TYPE_CHECKING:
    from crewgraph.tools.base_tool import BaseTool

__all__ = ["TOOL_RETRY_POLICY", "ToolCallNode", "ToolCallOutcome", "ToolTemplateNode"]

TOOL_RETRY_POLICY = RetryPolicy(
    max_attempts=3,
    initial_delay=0.2,
    max_delay=2.0,
    retry_on=(RetryableToolError,),
)
"""Default for tool calls: only a ``ToolFailure(retryable=True)`` is retried (3 attempts,
short backoff). Exceptions become text for the model instead, and the ``raise``
policy's ``ToolExecutionFailedError`` is fatal, so neither is retried here."""


class ToolCallOutcome(BaseModel):
    """The result of one tool invocation, as the agent step consumes it.

    ``text`` is what the model reads (the tool message content); ``raw`` the
    tool's own Python value; ``failure`` a ``ToolFailureRecord`` when the call
    failed under a policy that records it; ``result_as_answer`` ends the step
    with ``text`` as the final answer.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    call_id: str
    tool_name: str
    text: str
    raw: Any = None
    failure: Any = None
    from_cache: bool = False
    result_as_answer: bool = False
    reusable: bool = False
    """The result is in the run's tool cache (the tool's ``cache_function`` let it be kept), so it
    may answer the same call again: the agent step then answers a repeat with it and a reminder."""
    arguments: Any = None
    """What the tool was called with (after ``before_tool_call`` hooks): a dict, or the
    model's raw text when it was not a JSON object."""


_ARG_CHARS = 200
_ARG_KEYS = 12


def _bounded_args(arguments: Any) -> dict[str, Any]:
    """The call's arguments for the run record (executed graph, checkpoints, run.json): each
    value cut to a few hundred characters, so a tool fed a whole document stays small.
    Text that is not a JSON object is kept under ``"_raw"``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except ValueError:
            return {"_raw": arguments[:_ARG_CHARS]}
    if not isinstance(arguments, dict):
        return {"_raw": str(arguments)[:_ARG_CHARS]}
    bounded: dict[str, Any] = {}
    for key, value in list(arguments.items())[:_ARG_KEYS]:
        if isinstance(value, str):
            bounded[str(key)] = value[:_ARG_CHARS]
        elif value is None or isinstance(value, bool | int | float):
            bounded[str(key)] = value
        else:
            text = json.dumps(value, ensure_ascii=False, default=str)
            bounded[str(key)] = value if len(text) <= _ARG_CHARS else text[:_ARG_CHARS]
    return bounded


@dataclass(frozen=True, kw_only=True)
class ToolTemplateNode(Node):
    """Plan-only node: a tool an agent *may* call (joined by a dashed "may call" edge)."""

    kind: ClassVar[str] = "tool"
    plan_only: ClassVar[bool] = True

    tool: BaseTool

    async def run(self, ctx: NodeContext) -> NodeResult:  # pragma: no cover - never scheduled
        raise RuntimeError("tool template nodes only document the plan; they are not run")

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["tool"] = self.tool.name
        return d


@dataclass(frozen=True, kw_only=True)
class ToolCallNode(Node):
    """One invocation of a tool the model asked for.

    ``tool`` is None when the model named a tool the agent does not have
    (``available`` lists the names it does have, for the message back).
    ``policies`` is the failure-policy chain after the tool's own:
    (task, agent, crew); the first non-None wins, default warn. ``cache`` is
    the agent's/crew's cache switch (each tool's ``cache_function`` still
    decides per result). ``retry`` defaults to :data:`TOOL_RETRY_POLICY`.
    ``max_result_chars`` is the agent's cap on the text the model reads (the
    tool's own ``max_result_chars`` wins; see ``crewgraph.tools._result_cap``).
    """

    kind: ClassVar[str] = "tool"

    retry: RetryPolicy = field(default=TOOL_RETRY_POLICY)
    call: ToolCall
    tool: BaseTool | None
    available: tuple[str, ...] = ()
    agent_role: str | None = None
    task_name: str | None = None
    task_id: str | None = None
    """The calling task's id: ``crewgraph.context.get_current_task_id()`` inside the tool."""
    policies: tuple[Any, ...] = ()
    cache: bool = True
    max_result_chars: int | None = None
    call_format: str = ""
    """How the model made the call when it was not a native tool call: ``react`` (the text
    protocol) or a format of :mod:`crewgraph.nodes._content_calls` (``hermes``, ``json``...)."""

    async def run(self, ctx: NodeContext) -> NodeResult:
        from crewgraph.tools._invoke import invoke_tool_call

        token = execution_vars.current_task_id.set(self.task_id)
        try:
            outcome = await invoke_tool_call(self, ctx)
        finally:
            execution_vars.current_task_id.reset(token)
        info: dict[str, Any] = {
            "tool": self.call.name,
            "args": _bounded_args(self.call.arguments if outcome.arguments is None else outcome.arguments),
            "failed": outcome.failure is not None,
            "from_cache": outcome.from_cache,
        }
        if self.call_format:
            info["format"] = self.call_format
        if outcome.failure is not None:  # a handled failure: shown on the executed graph
            info["error"] = outcome.failure.summary()
        return NodeResult(output=outcome, info=info)

    @classmethod
    def for_call(
        cls,
        call: ToolCall,
        tools: Iterable[BaseTool],
        *,
        id: str,
        agent_role: str | None = None,
        task_name: str | None = None,
        policies: tuple[Any, ...] = (),
        cache: bool = True,
        **options: Any,
    ) -> ToolCallNode:
        """The node for ``call`` given the agent's tools: finds the tool the model named
        (exact or sanitized name) and lists the spec names for the "unknown tool" reply."""
        from crewgraph.tools._names import find_tool, sanitize_tool_name

        pool = list(tools)
        return cls(
            id=id,
            label=options.pop("label", "") or call.name,
            call=call,
            tool=find_tool(pool, call.name),
            available=tuple(sanitize_tool_name(t.name) for t in pool),
            agent_role=agent_role,
            task_name=task_name,
            policies=policies,
            cache=cache,
            **options,
        )

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["tool"] = self.call.name
        d["arguments"] = self.call.arguments
        if self.call_format:
            d["format"] = self.call_format
        return d
