"""MergeAgentHandlerTool: a tool of a Merge Agent Handler Tool Pack (Linear, Jira, Salesforce...).

Agent Handler speaks MCP's JSON-RPC over HTTP: ``POST
{base}/api/v1/tool-packs/{tool_pack_id}/registered-users/{registered_user_id}/mcp``
with ``Authorization: Bearer`` (``AGENT_HANDLER_API_KEY``) and an
``Mcp-Session-Id``; ``tools/list`` gives each tool's JSON Schema and
``tools/call`` runs one, as Merge documents. ``from_tool_name`` builds one
tool with its real schema, ``from_tool_pack`` all of a pack's. A result's
first text part is handed back (parsed when it is JSON); a JSON-RPC error
is a ToolFailure. ``base_url=`` or ``AGENT_HANDLER_BASE_URL`` moves the
API (default ``https://ah-api.merge.dev``).
"""

from __future__ import annotations

import json
import uuid
from typing import Any, ClassVar

from pydantic import Field, model_validator

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools._schema import json_schema_model
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["MergeAgentHandlerTool"]


class MergeAgentHandlerTool(HostedTool):
    """One Agent Handler tool, called through the pack's MCP endpoint."""

    name: str = Field(description="The tool's name (defaults to tool_name)")
    description: str = Field(description="What the tool does")
    tool_pack_id: str = Field(..., description="UUID of the Agent Handler Tool Pack to use")
    registered_user_id: str = Field(..., description="UUID or origin_id of the registered user")
    tool_name: str = Field(..., description="Name of the specific tool to execute")
    session_id: str | None = Field(default=None, description="MCP session ID (generated if not provided)")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}, description="JSON Schema of the arguments"
    )
    timeout: float = Field(default=60.0, gt=0, description="Seconds allowed for each request")

    _service: ClassVar[str] = "Merge Agent Handler"
    _key_envs: ClassVar[tuple[str, ...]] = ("AGENT_HANDLER_API_KEY",)
    _base_env: ClassVar[str | None] = "AGENT_HANDLER_BASE_URL"
    _default_base: ClassVar[str] = "https://ah-api.merge.dev"

    @model_validator(mode="before")
    @classmethod
    def _defaults_from_tool_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("tool_name"):
            data = dict(data)
            data.setdefault("name", data["tool_name"])
            data.setdefault("description", f"Execute {data['tool_name']} via Agent Handler")
        return data

    def model_post_init(self, __context: Any) -> None:
        from crewgraph.tools.base_tool import _ArgsSchemaPlaceholder

        if self.args_schema is _ArgsSchemaPlaceholder:
            self.args_schema = json_schema_model(self.parameters, self.name)
        super().model_post_init(__context)
        if self.session_id is None:
            self.session_id = str(uuid.uuid4())

    def _spec_parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}, **self.parameters}

    def _rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        payload: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": str(uuid.uuid4())}
        if params:
            payload["params"] = params
        path = f"/api/v1/tool-packs/{self.tool_pack_id}/registered-users/{self.registered_user_id}/mcp"
        reply = self._call("POST", path, json_body=payload, headers={
            "Authorization": f"Bearer {key}", "Mcp-Session-Id": str(self.session_id)})
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message="Agent Handler answered with something that is not JSON-RPC", code="invalid_response")
        if "error" in reply:
            error = reply["error"] if isinstance(reply["error"], dict) else {"message": reply["error"]}
            return ToolFailure(message=f"Agent Handler API error (code {error.get('code', -1)}): {error.get('message')}",
                               code="agent_handler_error")
        return reply

    def _run(self, **arguments: Any) -> Any:
        reply = self._rpc("tools/call", {"name": self.tool_name, "arguments": arguments})
        if isinstance(reply, ToolFailure):
            return reply
        result = reply.get("result") or {}
        content = result.get("content") if isinstance(result, dict) else None
        if content:
            text = content[0].get("text", "") if isinstance(content[0], dict) else str(content[0])
            if result.get("isError"):
                return ToolFailure(message=f"{self.tool_name} failed: {text}", code="tool_error")
            try:
                return json.loads(text)
            except (TypeError, ValueError):
                return text
        return reply

    def _list(self) -> list[dict[str, Any]] | ToolFailure:
        reply = self._rpc("tools/list")
        if isinstance(reply, ToolFailure):
            return reply
        tools = (reply.get("result") or {}).get("tools")
        if not isinstance(tools, list):
            return ToolFailure(message="Agent Handler listed no tools for the Tool Pack", code="invalid_response")
        return tools

    @classmethod
    def _from_schema(cls, schema: dict[str, Any], **fields: Any) -> MergeAgentHandlerTool:
        params = schema.get("inputSchema") or schema.get("parameters") or {"type": "object", "properties": {}}
        return cls(tool_name=schema["name"], description=schema.get("description") or f"Execute {schema['name']} via "
                   "Agent Handler", parameters=params, **fields)

    @classmethod
    def from_tool_name(cls, tool_name: str, tool_pack_id: str, registered_user_id: str, **fields: Any) -> MergeAgentHandlerTool:
        """The named tool with its schema and description from ``tools/list``; ``RuntimeError`` if it is not in the pack."""
        probe = cls(tool_name=tool_name, tool_pack_id=tool_pack_id, registered_user_id=registered_user_id, **fields)
        tools = probe._list()
        if isinstance(tools, ToolFailure):
            raise RuntimeError(f"Could not list the Tool Pack's tools: {tools.message}")
        schema = next((t for t in tools if t.get("name") == tool_name), None)
        if schema is None:
            raise RuntimeError(f"The Tool Pack has no tool {tool_name!r} (it has: {', '.join(t.get('name', '?') for t in tools)})")
        return cls._from_schema(schema, tool_pack_id=tool_pack_id, registered_user_id=registered_user_id,
                                session_id=probe.session_id, **fields)

    @classmethod
    def from_tool_pack(
        cls, tool_pack_id: str, registered_user_id: str, tool_names: list[str] | None = None, **fields: Any
    ) -> list[MergeAgentHandlerTool]:
        """All the pack's tools (or those in ``tool_names``; a name the pack lacks raises ``RuntimeError``)."""
        probe = cls(tool_name="tools/list", tool_pack_id=tool_pack_id, registered_user_id=registered_user_id, **fields)
        tools = probe._list()
        if isinstance(tools, ToolFailure):
            raise RuntimeError(f"Could not list the Tool Pack's tools: {tools.message}")
        if tool_names is not None:
            missing = set(tool_names) - {t.get("name") for t in tools}
            if missing:
                raise RuntimeError(f"The Tool Pack has no tool(s) {', '.join(sorted(missing))}")
            tools = [t for t in tools if t.get("name") in tool_names]
        return [cls._from_schema(t, tool_pack_id=tool_pack_id, registered_user_id=registered_user_id,
                                 session_id=probe.session_id, **fields) for t in tools if t.get("name")]
