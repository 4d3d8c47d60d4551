"""``DuckAgent``: any object with ``execute_task`` seen as a ``BaseAgent``.

CrewAI's ``Task.execute_sync(agent=...)`` only calls ``agent.execute_task(task,
context, tools)``, so an object that is not a ``BaseAgent`` subclass but has
that method (a test double, a thin wrapper) works there. crewgraph runs a task
as a one-task crew, whose agents are ``BaseAgent``s; this adapter carries such
an object into it. Its role, goal and tools are the object's own when it has
them.
"""

# No `from __future__ import annotations` (pydantic, as in base_agent.py).

import inspect
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from crewgraph.spec.base_agent import BaseAgent

__all__ = ["DuckAgent", "as_base_agent"]


class DuckAgent(BaseAgent):
    """Forwards CrewAI's agent contract to ``target``."""

    target: Any = Field(exclude=True)

    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        answer = self.target.execute_task(task, context, tools)
        if inspect.isawaitable(answer):
            from crewgraph._internal.sync import run_sync

            async def _wait() -> Any:
                return await answer

            answer = run_sync(_wait())
        return answer

    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        create = getattr(self.target, "create_agent_executor", None)
        if callable(create):
            create(tools)

    def get_delegation_tools(self, agents: "Sequence[BaseAgent]") -> list[Any]:
        get = getattr(self.target, "get_delegation_tools", None)
        return list(get(agents)) if callable(get) else []


def as_base_agent(agent: Any) -> BaseAgent:
    """``agent`` itself when it is a ``BaseAgent``; a :class:`DuckAgent` around it when it has
    ``execute_task``; otherwise a TypeError saying what an agent needs."""
    if isinstance(agent, BaseAgent):
        return agent
    if not callable(getattr(agent, "execute_task", None)):
        raise TypeError(
            f"agent must be a BaseAgent or have execute_task(task, context=None, tools=None); "
            f"got {type(agent).__name__}"
        )
    role = getattr(agent, "role", None)
    role = role if isinstance(role, str) and role.strip() else type(agent).__name__
    goal = getattr(agent, "goal", None)
    tools = getattr(agent, "tools", None)
    return DuckAgent(
        target=agent,
        role=role,
        goal=goal if isinstance(goal, str) and goal.strip() else role,
        backstory=str(getattr(agent, "backstory", "") or ""),
        tools=list(tools) if isinstance(tools, list | tuple) else [],
    )
