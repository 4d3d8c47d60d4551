"""``planning`` node: one structured LLM call that writes a step-by-step plan for every task.

``Crew(planning=True)`` puts this node before the tasks (see
:mod:`crewgraph.compiler.planning`). Planning is a node rather than a call in
``kickoff`` so it is in the run graph (its time and tokens are visible), is
checkpointed (a resumed run keeps the plan its finished tasks followed
instead of asking for a new one) and can be tested alone with ``run_node``.
The answer is structured (``response_model``), so plans are matched to
tasks by number, not by parsing prose. Its output is ``{task key: plan}``;
each agent step reads its own entry from its upstream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import StructuredOutputError
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.nodes._llm_call import call_llm, resolve_llm

__all__ = ["TASK_PLANS_EXTRA", "PlanPerTask", "PlannedTask", "PlannerTaskPydanticOutput", "PlanningNode"]

TASK_PLANS_EXTRA = "task_plans"
"""``RunState.extras`` key where the plans are also published (for steps spawned later,
such as guardrail redos, whose upstream does not include the planning node)."""

PLANNER_ROLE = "Task Execution Planner"
PLANNER_GOAL = (
    "Your goal is to create an extremely detailed, step-by-step plan based on the tasks and tools "
    "available to each agent so that they can perform the tasks in an exemplary manner"
)
PLANNER_BACKSTORY = "Planner agent for crew planning"


class PlanPerTask(BaseModel):
    """The plan for one task (CrewAI's shape, plus the task number to match it reliably)."""

    task_number: int = Field(description="The number of the task, as given in the summary (1, 2, ...)")
    task: str = Field(description="The task's description")
    plan: str = Field(description="Step by step plan on how the agent can execute the task")


class PlannerTaskPydanticOutput(BaseModel):
    """What the planner answers: one plan per task."""

    list_of_plans_per_task: list[PlanPerTask] = Field(description="One plan per task, in task order")


@dataclass(frozen=True)
class PlannedTask:
    """What the planner is told about one task (resolved at compile time)."""

    key: str
    description: str
    expected_output: str
    agent_role: str = ""
    agent_goal: str = ""
    tools: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class PlanningNode(Node):
    """Plans every task of a crew in one structured call."""

    kind: ClassVar[str] = "planning"

    tasks: tuple[PlannedTask, ...]
    llm: Any = None
    rpm_keys: tuple[str, ...] = ()

    async def run(self, ctx: NodeContext) -> NodeResult:
        llm = resolve_llm(self.llm, ctx, "crew planning")
        messages = [
            {"role": "system", "content": f"You are {PLANNER_ROLE}. {PLANNER_BACKSTORY}\nYour personal goal is: {PLANNER_GOAL}"},
            {"role": "user", "content": self._prompt(ctx.inputs)},
        ]
        try:
            reply = await call_llm(
                ctx, llm, messages, response_model=PlannerTaskPydanticOutput, rpm_keys=self.rpm_keys
            )
        except StructuredOutputError as exc:
            raise StructuredOutputError(f"crew planning step (planning=True): {exc}") from exc
        parsed = reply.parsed
        if not isinstance(parsed, PlannerTaskPydanticOutput):
            try:
                parsed = PlannerTaskPydanticOutput.model_validate_json(reply.content or "")
            except ValueError as exc:
                raise StructuredOutputError(f"the planner's answer is not a plan per task: {exc}") from exc
        plans = self._match(parsed)
        with ctx.state.lock:
            ctx.state.extras.setdefault(TASK_PLANS_EXTRA, {}).update(plans)
        return NodeResult(output=plans, usage=reply.usage, info={"tasks_planned": len(plans)})

    def _prompt(self, inputs: dict[str, Any]) -> str:
        summaries = []
        for i, task in enumerate(self.tasks, start=1):
            description = interpolate(task.description, inputs)
            summaries.append(
                f"Task Number {i} - {description}\n"
                f'"task_description": {description}\n'
                f'"task_expected_output": {interpolate(task.expected_output, inputs)}\n'
                f'"agent": {interpolate(task.agent_role, inputs) or "None"}\n'
                f'"agent_goal": {interpolate(task.agent_goal, inputs) or "None"}\n'
                f'"task_tools": {list(task.tools)}'
            )
        return (
            "Based on these tasks summary:\n\n" + "\n\n".join(summaries) + "\n\n"
            "Create the most descriptive plan based on the tasks descriptions, tools available, and "
            "agents' goals for them to execute their goals with perfection.\n"
            "Expected output: Step by step plan on how the agents can execute their tasks using the "
            "available tools with mastery, one plan per task number."
        )

    def _match(self, parsed: PlannerTaskPydanticOutput) -> dict[str, str]:
        """Plans by task key: by ``task_number`` when valid, else by position."""
        items = parsed.list_of_plans_per_task
        by_number = {p.task_number: p for p in items if 1 <= p.task_number <= len(self.tasks)}
        if len(by_number) != len(items):  # numbers missing, repeated or out of range
            by_number = dict(enumerate(items, start=1))
        plans: dict[str, str] = {}
        for i, task in enumerate(self.tasks, start=1):
            item = by_number.get(i)
            if item is not None and item.plan.strip():
                plans[task.key] = item.plan.strip()
        return plans

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["tasks"] = [t.key for t in self.tasks]
        return d
