"""``reasoning`` node: an agent plans its task before working on it (``Agent(reasoning=True)``).

As CrewAI documents: before the task the agent reflects on it and writes a
step-by-step plan, judges whether it is ready to execute it, and refines the
plan until it is ready or ``max_reasoning_attempts`` is reached; the plan is
then added to the task prompt ("Reasoning Plan: ..."). It is a node of its own
so the plan, its time and its tokens show in the run graph and a resumed run
keeps the plan it already made. Like CrewAI's reasoning it sees the task,
the agent and its tools (not other tasks' outputs), so it needs nothing
upstream and runs as soon as the crew starts. CrewAI's "until ready" without a
limit is bounded here: at most :data:`UNBOUNDED_ATTEMPTS` attempts.

A failed reasoning call does not fail the task: the agent works without a
plan, as in CrewAI, and an ``AgentReasoningFailedEvent`` says why.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from crewgraph._internal.interpolate import interpolate
from crewgraph.events.reasoning_events import (
    AgentReasoningCompletedEvent,
    AgentReasoningFailedEvent,
    AgentReasoningStartedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy
from crewgraph.nodes._llm_call import call_llm, resolve_llm
from crewgraph.nodes._prompts import system_prompt
from crewgraph.outputs import UsageMetrics

__all__ = ["UNBOUNDED_ATTEMPTS", "ReasoningNode", "is_ready"]

_log = logging.getLogger("crewgraph.agent")

UNBOUNDED_ATTEMPTS = 5
"""Attempts when ``max_reasoning_attempts`` is None (CrewAI: "until ready"; every wait is bounded here)."""

_READY = re.compile(r"\bREADY\b")
_NOT_READY = re.compile(r"\bNOT\s+READY\b", re.IGNORECASE)


def is_ready(reply: str) -> bool:
    """The plan ends with the agent saying it is READY (and not NOT READY)."""
    return bool(_READY.search(reply)) and not _NOT_READY.search(reply)


def _plan_text(reply: str) -> str:
    """The plan without the readiness verdict line."""
    lines = [ln for ln in reply.strip().splitlines() if not re.match(r"^\W*(NOT\s+)?READY\b", ln.strip(), re.I)]
    return "\n".join(lines).strip()


@dataclass(frozen=True, kw_only=True)
class ReasoningNode(Node):
    """Writes (and refines) the agent's plan for one task; its output is the plan text."""

    kind: ClassVar[str] = "reasoning"

    task_name: str
    description: str
    expected_output: str
    agent_role: str
    agent_goal: str = ""
    agent_backstory: str = ""
    system_template: str | None = None
    tool_names: tuple[str, ...] = ()
    llm: Any = None
    max_attempts: int | None = None
    rpm_keys: tuple[str, ...] = ()
    max_tokens: int | None = None
    retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(max_attempts=1))

    async def run(self, ctx: NodeContext) -> NodeResult:
        task_name, role = interpolate(self.task_name, ctx.inputs), interpolate(self.agent_role, ctx.inputs)
        llm = resolve_llm(self.llm, ctx, f"task {task_name!r} (reasoning)")
        messages: list[dict[str, Any]] = [
            {
                "role": "system",
                "content": system_prompt(
                    role,
                    interpolate(self.agent_goal, ctx.inputs),
                    interpolate(self.agent_backstory, ctx.inputs),
                    self.system_template,
                ),
            },
            {"role": "user", "content": self._prompt(ctx.inputs)},
        ]
        limit = self.max_attempts or UNBOUNDED_ATTEMPTS
        usage = UsageMetrics()
        plan, ready, attempt = "", False, 0
        options = {"max_tokens": self.max_tokens} if self.max_tokens else {}
        while attempt < limit and not ready:
            attempt += 1
            ctx.emit(AgentReasoningStartedEvent(agent_role=role, task_name=task_name, attempt=attempt))
            try:
                reply = await call_llm(ctx, llm, messages, rpm_keys=self.rpm_keys, options=options)
            except Exception as exc:  # the agent works without a plan (CrewAI's behaviour)
                _log.warning("task %r: reasoning failed (%s); the agent works without a plan", task_name, exc)
                ctx.emit(
                    AgentReasoningFailedEvent(agent_role=role, task_name=task_name, error=str(exc), attempt=attempt)
                )
                break
            usage = usage.add(reply.usage)
            text = reply.content or ""
            ready = is_ready(text)
            plan = _plan_text(text) or plan
            ctx.emit(
                AgentReasoningCompletedEvent(
                    agent_role=role, task_name=task_name, plan=plan, ready=ready, attempt=attempt
                )
            )
            if not ready and attempt < limit:
                messages.append({"role": "assistant", "content": text})
                messages.append({"role": "user", "content": REFINE_PROMPT})
        return NodeResult(output=plan, usage=usage, info={"attempts": attempt, "ready": ready})

    def _prompt(self, inputs: dict[str, Any]) -> str:
        tools = ", ".join(self.tool_names) if self.tool_names else "none"
        return (
            "You are about to work on this task. Before you start, reflect on it and write a detailed, "
            "step-by-step plan for doing it well.\n\n"
            f"Task: {interpolate(self.description, inputs)}\n\n"
            f"Expected output: {interpolate(self.expected_output, inputs)}\n\n"
            f"Tools available to you: {tools}\n\n"
            "Cover: what the task asks, the steps you will take, the tools you will use in each step, "
            "the challenges you expect and how you will handle them, and what the final answer will "
            "contain. Then judge your plan: end your reply with a last line that is exactly "
            "'READY: I am ready to execute the task.' if the plan is complete, or 'NOT READY: <what is "
            "missing>' if it needs refining."
        )

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, agent=self.agent_role, max_attempts=self.max_attempts)
        return d


REFINE_PROMPT = (
    "Refine your plan: address what was missing, keep what was good, and end again with a last line "
    "that is exactly 'READY: I am ready to execute the task.' or 'NOT READY: <what is missing>'."
)
