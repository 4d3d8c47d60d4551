"""Zapier AI Actions as tools: ``ZapierActionTools()`` lists your actions, each a ``ZapierActionTool``.

``GET {base}/api/v2/ai-actions`` (the ``x-api-key`` header, ``ZAPIER_API_KEY``)
lists the actions exposed to AI in your Zapier account; each becomes a tool
named after its label (``gmail_send_email``), whose arguments are
``instructions`` plus the action's parameters. A call is ``POST
{base}/api/v2/ai-actions/{id}/execute/`` with ``{"instructions", "params":
{name: {"value", "mode": "guess"}}}``, as Zapier's AI Actions API documents;
the reply is handed back as a dict. ``base_url=`` or ``ZAPIER_BASE_URL``
moves the API (default ``https://actions.zapier.com``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.tools._schema import json_schema_model
from crewgraph.tools.base_tool import _ArgsSchemaPlaceholder
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ZapierActionTool", "ZapierActionTools"]

_DEFAULT_BASE = "https://actions.zapier.com"
_INSTRUCTIONS = {"type": "string", "description": "Instructions for how to execute this action"}


class ZapierActionTool(HostedTool):
    """One Zapier AI Action (built by :func:`ZapierActionTools`, or by hand with ``action_id``)."""

    name: str = Field(description="Tool name")
    description: str = Field(description="Tool description")
    action_id: str = Field(description="Zapier action ID")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {"instructions": _INSTRUCTIONS}},
        description="JSON Schema of the arguments (instructions plus the action's parameters)",
    )

    _service: ClassVar[str] = "Zapier"
    _key_envs: ClassVar[tuple[str, ...]] = ("ZAPIER_API_KEY",)
    _base_env: ClassVar[str | None] = "ZAPIER_BASE_URL"
    _default_base: ClassVar[str] = _DEFAULT_BASE

    def model_post_init(self, __context: Any) -> None:
        if self.args_schema is _ArgsSchemaPlaceholder:
            self.args_schema = json_schema_model(self.parameters, self.name)
        super().model_post_init(__context)

    def _spec_parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}, **self.parameters}

    def _run(self, **arguments: Any) -> Any:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        instructions = arguments.pop("instructions", None) or "Execute this action with the provided parameters"
        params = {name: {"value": value, "mode": "guess"} for name, value in arguments.items() if value is not None}
        return self._call("POST", f"/api/v2/ai-actions/{self.action_id}/execute/", headers={"x-api-key": key},
                          json_body={"instructions": instructions, "params": params})


def ZapierActionTools(  # CrewAI names this factory like a class
    zapier_api_key: str | None = None,
    action_list: list[str] | None = None,
    *,
    base_url: str | None = None,
    timeout: float = 30.0,
) -> list[ZapierActionTool]:
    """The account's AI Actions as tools (only those named in ``action_list`` when given).

    Raises ``ValueError`` without a key and ``RuntimeError`` when Zapier cannot
    be listed: the tools cannot exist without their schemas.
    """
    from crewgraph.toolkit._http import call_json

    key = zapier_api_key or first_env("ZAPIER_API_KEY")
    if not key:
        raise ValueError("ZapierActionTools needs a Zapier API key: set ZAPIER_API_KEY or pass zapier_api_key=...")
    base = (base_url or first_env("ZAPIER_BASE_URL") or _DEFAULT_BASE).rstrip("/")
    reply = call_json("GET", f"{base}/api/v2/ai-actions", service="Zapier", headers={"x-api-key": key},
                      timeout=timeout, key_hint="set ZAPIER_API_KEY")
    if isinstance(reply, ToolFailure):
        raise RuntimeError(f"ZapierActionTools could not list the actions: {reply.message}")
    tools = []
    for action in reply.get("results", []) if isinstance(reply, dict) else []:
        label = str(action.get("meta", {}).get("action_label") or action["id"])
        name = label.replace(" ", "_").replace(":", "").lower()
        if action_list is not None and name not in action_list:
            continue
        properties: dict[str, Any] = {"instructions": _INSTRUCTIONS}
        for param, info in (action.get("params") or {}).items():
            properties[param] = {"type": "string", "description": info.get("description", "") if isinstance(info, dict) else ""}
        tools.append(ZapierActionTool(
            name=name, description=str(action.get("description") or label), action_id=str(action["id"]),
            api_key=zapier_api_key, base_url=base_url, timeout=timeout,
            parameters={"type": "object", "properties": properties, "required": ["instructions"]},
        ))
    return tools
