"""CrewAI's ``Task`` methods besides running it synchronously, as a mixin of ``Task``: the async
twin of ``execute_sync``, CrewAI's ``copy(agents, task_mapping)``, ``prompt()`` and ``key``.
"""

from __future__ import annotations

import uuid
from hashlib import md5
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from crewgraph.outputs import TaskOutput

__all__ = ["TaskAPI"]


class TaskAPI:
    """The methods; the fields they read are declared on ``Task`` (not annotated here:
    pydantic would take annotations of a base class as fields)."""

    @property
    def key(self) -> str:
        """CrewAI's task key: the md5 of the description and expected output as written (before
        the kickoff inputs fill them), the same on every run; ``Crew.key`` is built from it."""
        me = cast(Any, self)
        return md5(f"{me.description}|{me.expected_output}".encode(), usedforsecurity=False).hexdigest()

    async def aexecute_sync(
        self, agent: Any = None, context: str | None = None, tools: list[Any] | None = None
    ) -> TaskOutput:
        """:meth:`execute_sync` on the current event loop (CrewAI's async twin)."""
        from crewgraph.runner.solo import run_task

        return await run_task(cast(Any, self), agent=agent, context=context, tools=tools)

    def prompt(self) -> str:
        """The task part of the prompt the agent is given for this task (description and
        expected output, and the JSON schema of a structured answer), without the context."""
        from crewgraph.nodes._prompts import task_prompt

        me = cast(Any, self)
        model = me.structured_model
        return task_prompt(me.description, me.expected_output,
                           output_schema=model.model_json_schema() if model is not None else None)

    def copy(  # CrewAI's Task.copy, not pydantic's deprecated one
        self, agents: list[Any], task_mapping: dict[str, Any]
    ) -> Any:
        """A copy for another crew (CrewAI's): a new id; its agent is the one of ``agents`` with
        the same role (else its own); its ``context`` tasks are looked up by :attr:`key` in
        ``task_mapping`` (tasks copied before it), else kept."""
        me = cast(Any, self)
        agent = me.agent
        if agent is not None:
            agent = next((a for a in agents if getattr(a, "role", None) == agent.role), agent)
        context = me.context
        if isinstance(context, list):
            context = [task_mapping.get(t.key, t) for t in context]
        copied = me.model_copy(update={"id": uuid.uuid4(), "agent": agent, "context": context,
                                       "tools": list(me.tools)})
        copied._tools_from_agent = me._tools_from_agent
        return copied
