"""The agent step's first prompt (a mixin of :class:`~crewgraph.nodes.agent_step.AgentStepNode`).

A task's first turn sends two messages: the system prompt (role, goal, backstory, or the
agent's ``system_template``) and the task prompt, which CrewAI builds from the description
(inputs and file names filled in, today's date, the agent's reasoning plan), the expected
output, the context of earlier tasks, memories, knowledge, the crew's plan, the output schema
and the agent's skills and trained instructions. A default context is one shared text
(``ContextRef``), kept by reference in the message once the call is over.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from crewgraph._internal.crew_chat import with_conversation
from crewgraph._internal.interpolate import interpolate
from crewgraph._internal.shared_prompt import ContextRef, PromptMessage
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.nodes._context import context_entry, prefix_context_ref
from crewgraph.nodes._prompts import format_context, system_prompt, task_prompt_around

__all__ = ["StepPrompts"]


class StepPrompts:
    """The first messages of a node with the agent step's prompt fields."""

    context_nodes: Any
    memory_node: str | None
    knowledge_node: str | None
    reasoning_node: str | None
    plan_node: str | None
    plan_key: str
    plan: str
    description: str
    expected_output: str
    output_schema: dict[str, Any] | None
    tools: tuple[Any, ...]
    skills_context: str
    trained_instructions: str
    input_files: tuple[tuple[str, str], ...]
    agent_role: str
    agent_goal: str
    agent_backstory: str
    system_template: str | None
    date_format: str | None

    def _context(self, ctx: NodeContext) -> str:
        return self._context_ref(ctx)[0]

    def _context_ref(self, ctx: NodeContext) -> tuple[str, ContextRef | None]:
        """The context text, and for a default context a ref to it in the run's shared text."""
        if isinstance(self.context_nodes, NodePrefix):
            return prefix_context_ref(ctx, self.context_nodes)
        return format_context([entry for nid in self.context_nodes if (entry := context_entry(ctx, nid))]), None

    def _first_messages(self, ctx: NodeContext, context: str, ref: ContextRef | None = None) -> list[dict[str, Any]]:
        memories = str(ctx.upstream.get(self.memory_node) or "") if self.memory_node is not None else ""
        knowledge = str(ctx.upstream.get(self.knowledge_node) or "") if self.knowledge_node is not None else ""
        head, tail = task_prompt_around(
            self._description(ctx),
            interpolate(self.expected_output, ctx.inputs),
            with_context=bool(context),
            memories=memories,
            knowledge=knowledge,
            plan=self.plan or self._planned(ctx),
            output_schema=self.output_schema,
            has_tools=bool(self.tools),
        )
        tail += self.skills_context + self.trained_instructions
        prompt = "".join((head, context, tail))  # one allocation: no ~300 KB intermediate at 10,000 tasks
        user: dict[str, Any] = {"role": "user", "content": prompt}
        if self.input_files:
            from crewgraph._internal.input_files import content_parts

            text, parts = content_parts(list(self.input_files))
            prompt = f"{prompt}\n\n{text}" if text else prompt
            user["content"] = [{"type": "text", "text": prompt}, *parts] if parts else prompt
        elif ref is not None and context:
            # The same dict the model is sent, which keeps only a ref to the shared context
            # once the call is over (TaskOutput.messages, the run graph's call records).
            user = PromptMessage(head, ref, tail, prompt)
        return [
            {
                "role": "system",
                "content": system_prompt(
                    interpolate(self.agent_role, ctx.inputs),
                    interpolate(self.agent_goal, ctx.inputs),
                    interpolate(self.agent_backstory, ctx.inputs),
                    self.system_template,
                ),
            },
            user,
        ]

    def _description(self, ctx: NodeContext) -> str:
        """The task description as the agent reads it: inputs (and file names) filled in, the
        conversation of a chat-started kickoff (``crew_chat_messages``), then today's date
        (``inject_date``) and the agent's reasoning plan, as CrewAI appends them."""
        files = {name: f"the file {name!r} ({source.rsplit('/', 1)[-1]})" for name, source in self.input_files}
        text = with_conversation(interpolate(self.description, {**ctx.inputs, **files}), ctx.inputs)
        if self.date_format:
            text += f"\n\nCurrent Date: {datetime.now().strftime(self.date_format)}"
        if self.reasoning_node is not None:
            plan = ctx.upstream.get(self.reasoning_node)
            if isinstance(plan, str) and plan.strip():
                text += f"\n\nReasoning Plan:\n{plan.strip()}"
        return text

    def _planned(self, ctx: NodeContext) -> str:
        """This task's plan from the planning node (or, for a redo spawned later, the run state)."""
        if self.plan_node is None:
            return ""
        plans = ctx.upstream.get(self.plan_node)
        if not isinstance(plans, dict):
            plans = ctx.state.extras.get("task_plans") or {}
        return str(plans.get(self.plan_key, ""))
