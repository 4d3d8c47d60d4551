"""``Crew.copy()`` / ``Agent.copy()``: CrewAI's fresh copies for one more run.

CrewAI's ``kickoff_for_each`` runs a copy of the crew per input, so what one
run leaves on its agents (a manager's state, an override's attributes) does
not reach the next. A copy has new ids and the same configuration: lists are
new lists, models (LLMs) and tools are shared, tasks point at the copied
agents and at the copied tasks of their ``context``.
"""

from __future__ import annotations

import uuid
from typing import Any

__all__ = ["copy_agent", "copy_crew"]


def copy_agent(agent: Any) -> Any:
    """``agent`` with a new id (and its own tools list)."""
    update: dict[str, Any] = {"id": uuid.uuid4()}
    if isinstance(getattr(agent, "tools", None), list):
        update["tools"] = list(agent.tools)
    return agent.model_copy(update=update)


def copy_crew(crew: Any) -> Any:
    """``crew`` with copied agents, tasks and manager agent (see the module docstring)."""
    agents = {a.id: copy_agent(a) for a in crew.agents}
    manager = None if crew.manager_agent is None else agents.get(crew.manager_agent.id) or copy_agent(
        crew.manager_agent)
    tasks: dict[Any, Any] = {}
    for task in crew.tasks:
        agent = None if task.agent is None else agents.get(task.agent.id, task.agent)
        context = task.context
        if isinstance(context, list):
            context = [tasks.get(t.id, t) for t in context]
        copy = task.model_copy(update={"id": uuid.uuid4(), "agent": agent, "context": context,
                                       "tools": list(task.tools)})
        copy._tools_from_agent = task._tools_from_agent
        tasks[task.id] = copy
    return crew.model_copy(update={"id": uuid.uuid4(), "agents": list(agents.values()),
                                   "tasks": list(tasks.values()), "manager_agent": manager})
