"""CrewAI's ``BaseAgent`` methods besides the abstract contract, as a mixin of ``BaseAgent``.

They are what CrewAI's crew calls on each agent before a kickoff (``interpolate_inputs``,
``set_rpm_controller``, ``set_knowledge``, ``set_skills``) and what CrewAI code reads after one
(``key``, ``last_tool_failures``). Kept apart so ``base_agent.py`` stays the definition.
"""

from __future__ import annotations

from hashlib import md5
from typing import Any, cast

__all__ = ["BaseAgentAPI"]


class BaseAgentAPI:
    """The methods; the fields and private attributes they use are declared on ``BaseAgent``
    (not annotated here: pydantic would take annotations of a base class as fields)."""

    @property
    def key(self) -> str:
        """CrewAI's agent key: the md5 of role, goal and backstory as written (before
        :meth:`interpolate_inputs` filled them), so it is the same on every run."""
        me = cast(Any, self)
        source = [me._original_role or me.role, me._original_goal or me.goal,
                  me._original_backstory or me.backstory]
        return md5("|".join(source).encode(), usedforsecurity=False).hexdigest()

    async def aexecute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """The async twin of ``execute_task``; by default it runs ``execute_task`` in a worker
        thread (a third-party agent that only writes the sync form still works in async runs)."""
        import asyncio

        return str(await asyncio.to_thread(cast(Any, self).execute_task, task, context, tools))

    def interpolate_inputs(self, inputs: dict[str, Any]) -> None:
        """Fill ``{placeholders}`` of role, goal and backstory from ``inputs``, always from the
        text as first written (so a second kickoff with other inputs fills it afresh)."""
        me = cast(Any, self)
        from crewgraph._internal.interpolate import interpolate

        if me._original_role is None:
            me._original_role = me.role
        if me._original_goal is None:
            me._original_goal = me.goal
        if me._original_backstory is None:
            me._original_backstory = me.backstory
        if inputs:
            me.role = interpolate(me._original_role, inputs)
            me.goal = interpolate(me._original_goal, inputs)
            me.backstory = interpolate(me._original_backstory, inputs)

    def set_rpm_controller(self, rpm_controller: Any) -> None:
        """Adopt a crew's requests-per-minute limit (an object with ``max_rpm``, like CrewAI's
        ``RPMController``) unless the agent has one: the engine then rate-limits this agent's
        model calls to it."""
        me = cast(Any, self)
        if me._rpm_controller is not None:
            return
        me._rpm_controller = rpm_controller
        limit = getattr(rpm_controller, "max_rpm", None)
        if me.max_rpm is None and isinstance(limit, int) and limit > 0:
            me.max_rpm = limit

    def set_knowledge(self, crew_embedder: Any = None) -> None:
        """Build and index this agent's knowledge now (it is otherwise built on first use):
        ``crew_embedder`` is used when the agent names no embedder of its own."""
        me = cast(Any, self)
        if crew_embedder is not None and "embedder" in type(me).model_fields and me.embedder is None:
            me.embedder = crew_embedder
        from crewgraph.knowledge.owners import agent_knowledge

        knowledge = agent_knowledge(self)
        if knowledge is not None:
            knowledge.ensure_indexed()

    def set_skills(self, resolved_crew_skills: list[Any] | None = None) -> None:
        """Load and activate this agent's skills (then ``resolved_crew_skills``, a crew's; a name
        both have keeps the agent's) into ``Skill`` objects, as CrewAI does before a kickoff."""
        me = cast(Any, self)
        from crewgraph.skills.loader import load_skills

        entries = [*(me.skills or []), *(resolved_crew_skills or [])]
        me.skills = load_skills(entries, self) if entries else None

    def get_mcp_tools(self, mcps: list[Any]) -> list[Any]:
        """The tools of the MCP servers ``mcps`` (URLs or MCPServerStdio/HTTP/SSE configs), named
        ``<server>_<tool>`` as an agent's ``mcps`` give them (the servers are listed now)."""
        from crewgraph.spec._validators import check_mcps
        from crewgraph.tools.mcp.discovery import mcp_tools

        configs = check_mcps(mcps) if mcps else []
        return list(mcp_tools(configs, agent=self)) if configs else []

    @property
    def last_tool_failures(self) -> list[Any]:
        """The ``ToolFailureRecord``s of this agent's most recent task or kickoff."""
        me = cast(Any, self)
        return list(me._tool_failures)

    def reset_tool_failures(self) -> None:
        """Forget :attr:`last_tool_failures`."""
        me = cast(Any, self)
        me._tool_failures.clear()
