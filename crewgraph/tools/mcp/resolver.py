"""CrewAI's ``MCPToolResolver``: an agent's ``mcps`` entries as tools (``crewai.mcp``).

``resolve(mcps)`` turns each entry -- a URL (``...#tool`` for one tool), an ``MCPServerStdio``/
``MCPServerHTTP``/``MCPServerSSE`` config, a dict -- into the server's tools, named
``<server>_<tool>`` and filtered by the config's ``tool_filter``, exactly what ``Agent(mcps=...)``
gives the agent. crewgraph's MCP tools open their sessions per run (one per server and run), so
the resolver keeps no session open: :attr:`clients` lists the clients it connected for
discovery, closed again when the listing is done, and :meth:`cleanup` forgets them.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["MCPToolResolver"]


class MCPToolResolver:
    """Resolves MCP server references to tools for ``agent`` (see the module docstring)."""

    def __init__(self, agent: Any = None, logger: logging.Logger | None = None) -> None:
        self.agent = agent
        self.logger = logger or logging.getLogger(__name__)
        self._clients: list[Any] = []

    @property
    def clients(self) -> list[Any]:
        """The clients this resolver opened (none stay connected: sessions are per run)."""
        return list(self._clients)

    def resolve(self, mcps: list[Any]) -> list[Any]:
        """The tools of every server in ``mcps`` (a ValueError naming a bad entry's position)."""
        from crewgraph.tools.mcp.config import to_server_configs
        from crewgraph.tools.mcp.discovery import mcp_tools

        return list(mcp_tools(to_server_configs(list(mcps)), agent=self.agent))

    def cleanup(self) -> None:
        """Forget the clients (crewgraph closes every session at the end of its run)."""
        self._clients.clear()
