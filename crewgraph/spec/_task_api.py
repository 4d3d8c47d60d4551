"""CrewAI's ``Task`` methods besides running it synchronously, as a mixin of ``Task``: the async
twin of ``execute_sync``, CrewAI's ``copy(agents, task_mapping)``, ``prompt()``, ``key`` and
``interpolate_inputs_and_add_conversation_history``.
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

    def interpolate_inputs_and_add_conversation_history(self, inputs: dict[str, Any]) -> None:
        """Fill ``{placeholders}`` of the description, expected output and output file with
        ``inputs`` (CrewAI's), from the texts as first written (kept on the first call, so a
        second call fills them again), and add the conversation of ``inputs["crew_chat_messages"]``
        after the description. For running the task alone afterwards (``execute_sync``,
        ``agent.execute_task(task)``); a crew's kickoff fills its tasks' texts itself.

        Raises ValueError naming the variable and the field an input is missing for."""
        from crewgraph._internal.crew_chat import with_conversation
        from crewgraph._internal.interpolate import interpolate, missing_placeholders

        me = cast(Any, self)
        originals = me._originals
        if originals is None:
            originals = me._originals = (me.description, me.expected_output, me.output_file)
        if not inputs:
            return
        description, expected_output, output_file = originals
        filled: list[str | None] = []
        for what, text in (("description", description), ("expected_output", expected_output),
                           ("output_file", output_file)):
            if text is None:
                filled.append(None)
                continue
            missing = missing_placeholders(text, inputs)
            if missing:
                raise ValueError(f"Missing required template variable {missing[0]!r} in {what} of task "
                                 f"{me.display_name()!r}")
            filled.append(interpolate(text, inputs))
        me.description = with_conversation(str(filled[0]), inputs)
        me.expected_output = filled[1]
        if output_file is not None:
            me.output_file = filled[2]

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
