"""CrewAI's ``crewai_tools.adapters.zapier_adapter`` path: ``ZapierActionsAdapter`` and ``ZapierActionTool``.

The adapter is CrewAI's older front door to the same AI Actions API as
:func:`crewgraph.toolkit.ZapierActionTools`: built with a key (or
``ZAPIER_API_KEY``; none is a ``ValueError``, as in CrewAI),
``get_zapier_actions()`` returns the listing and ``tools()`` the actions as
tools.
"""

from __future__ import annotations

from typing import Any

from crewgraph.toolkit._hosted import first_env
from crewgraph.toolkit.zapier_tools import ZapierActionTool, ZapierActionTools

__all__ = ["ZapierActionTool", "ZapierActionsAdapter"]


class ZapierActionsAdapter:
    """The Zapier AI Actions of one account (``base_url`` / ``ZAPIER_BASE_URL`` move the API)."""

    def __init__(self, api_key: str | None = None, *, base_url: str | None = None, timeout: float = 30.0) -> None:
        self.api_key = api_key or first_env("ZAPIER_API_KEY")
        if not self.api_key:
            raise ValueError("ZapierActionsAdapter needs a Zapier API key: set ZAPIER_API_KEY or pass api_key=...")
        self.base_url = base_url
        self.timeout = timeout

    def get_zapier_actions(self) -> Any:
        """Zapier's listing of the account's AI Actions (``{"results": [...]}``); a failure raises RuntimeError."""
        from crewgraph.toolkit._http import call_json
        from crewgraph.tools.tool_failure import ToolFailure

        base = (self.base_url or first_env("ZAPIER_BASE_URL") or "https://actions.zapier.com").rstrip("/")
        reply = call_json("GET", f"{base}/api/v2/ai-actions", service="Zapier", headers={"x-api-key": str(self.api_key)},
                          timeout=self.timeout, key_hint="set ZAPIER_API_KEY")
        if isinstance(reply, ToolFailure):
            raise RuntimeError(f"ZapierActionsAdapter could not list the actions: {reply.message}")
        return reply

    def tools(self) -> list[ZapierActionTool]:
        """Every action as a :class:`ZapierActionTool`."""
        return ZapierActionTools(self.api_key, base_url=self.base_url, timeout=self.timeout)
