"""Tools agents can call: ``BaseTool``, ``@tool``, failures and their policy, adapters.

Importing this package stays light (no HTTP, HTML or document libraries);
ready-made tools live in :mod:`crewgraph.toolkit`.
"""

from typing import TYPE_CHECKING, Any

from crewgraph.errors import ToolExecutionFailedError
from crewgraph.tools._names import find_tool, sanitize_tool_name
from crewgraph.tools._registry import coerce_tool, registered_tool_types, tool_from_dict
from crewgraph.tools.adapters import (
    JSONSchemaTool,
    LangChainToolAdapter,
    from_function_schema,
    from_langchain,
)
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.env_vars import EnvVar
from crewgraph.tools.function_tool import StructuredTool, Tool, tool
from crewgraph.tools.tool_failure import (
    ToolFailure,
    ToolFailurePolicy,
    ToolFailureReason,
    ToolFailureRecord,
    resolve_failure_policy,
)

if TYPE_CHECKING:
    from crewgraph.tools.mcp import MCPServerAdapter

__all__ = [
    "BaseTool",
    "EnvVar",
    "JSONSchemaTool",
    "LangChainToolAdapter",
    "MCPServerAdapter",
    "StructuredTool",
    "Tool",
    "ToolExecutionFailedError",
    "ToolFailure",
    "ToolFailurePolicy",
    "ToolFailureReason",
    "ToolFailureRecord",
    "coerce_tool",
    "find_tool",
    "from_function_schema",
    "from_langchain",
    "registered_tool_types",
    "resolve_failure_policy",
    "sanitize_tool_name",
    "tool",
    "tool_from_dict",
]


def __getattr__(name: str) -> Any:
    # MCP lives in a subpackage that imports this one; load it on first access.
    if name == "MCPServerAdapter":
        from crewgraph.tools.mcp import MCPServerAdapter

        return MCPServerAdapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
