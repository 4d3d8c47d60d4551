"""Tools an agent gets from outside the process (MCP servers), resolved when the crew compiles.

Discovery happens here so a server that cannot be reached, or tools whose names
clash with the agent's own, fail ``crew.compile()`` with the task and agent
named — before any token is spent — and so the tools appear as ``tool`` nodes
of the plan like any other.
"""

from __future__ import annotations

from typing import Any

from crewgraph.compiler.validate import task_label
from crewgraph.errors import CompileError, CrewGraphError

__all__ = ["with_mcp_tools"]


def with_mcp_tools(tools: list[Any], agent: Any, task: Any, index: int) -> list[Any]:
    """``tools`` plus the tools of ``agent.mcps``; CompileError naming the task and the agent
    when a server cannot be listed or a tool name clashes with one the agent already has."""
    if not getattr(agent, "mcps", None):
        return tools
    from crewgraph.spec._validators import _unique_names
    from crewgraph.tools.mcp.discovery import agent_mcp_tools

    where = task_label(task, index)
    try:
        return list(_unique_names([*tools, *agent_mcp_tools(agent)]))
    except CrewGraphError as exc:
        raise CompileError(f"{where}: agent {agent.role!r}: {exc}", task=where) from exc
    except ValueError as exc:
        raise CompileError(f"{where}: agent {agent.role!r}: {exc}", task=where) from exc
