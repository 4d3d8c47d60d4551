"""CrewAI's ``crewai.mcp.config`` import path (the code lives in crewgraph.tools.mcp.config)."""

from crewgraph.tools.mcp.config import MCPServerConfig, MCPServerHTTP, MCPServerSSE, MCPServerStdio

__all__ = ["MCPServerConfig", "MCPServerHTTP", "MCPServerSSE", "MCPServerStdio"]
