"""ComposioTool: an action of the hosted Composio platform as a crewgraph tool.

``ComposioTool.from_action("GITHUB_GET_REPOS", user_id="default")`` asks the
Composio SDK (``pip install composio``, key in ``COMPOSIO_API_KEY``) for the
action's schema (``tools.get_raw_composio_tool_by_slug``) and runs it with
``tools.execute(slug, arguments=..., user_id=...)``; a reply with
``successful: false`` comes back as a :class:`ToolFailure` carrying
Composio's error. ``composio=`` takes a ready ``Composio`` client. The SDK is
not a crewgraph extra (it talks only to Composio's service); without it,
``from_action`` says what to install.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from pydantic import Field

from crewgraph.toolkit._hosted import first_env, missing_library
from crewgraph.tools.adapters import JSONSchemaTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ComposioTool"]


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class ComposioTool(JSONSchemaTool):
    """Built with :meth:`from_action`."""

    slug: str = Field(default="", description="The Composio action (tool slug)")
    user_id: str = Field(default="default", description="The Composio user whose connected account runs the action")

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """The variable :meth:`from_action` reads the key from (CrewAI's ``env_vars``)."""
        return ("COMPOSIO_API_KEY",)

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("composio") is None:
            return [missing_library("ComposioTool", "composio", "composio")]
        return []

    @classmethod
    def from_action(cls, action: Any, *, user_id: str = "default", composio: Any = None, **fields: Any) -> ComposioTool:
        """Wrap one action (its slug, or an enum/object whose ``value``/``slug`` is the slug)."""
        if composio is None:
            if importlib.util.find_spec("composio") is None:
                raise ImportError(missing_library("ComposioTool", "composio", "composio"))
            from composio import Composio

            key = first_env("COMPOSIO_API_KEY")
            if not key:
                raise ValueError("ComposioTool needs a Composio API key: set COMPOSIO_API_KEY or pass composio=Composio(api_key=...)")
            composio = Composio(api_key=key)
        slug = str(_field(action, "slug") or _field(action, "value") or action)
        schema = composio.tools.get_raw_composio_tool_by_slug(slug)
        parameters = dict(_field(schema, "input_parameters") or {"type": "object", "properties": {}})
        parameters.pop("title", None)

        def execute(**arguments: Any) -> Any:
            reply = composio.tools.execute(slug, arguments=arguments, user_id=user_id)
            if _field(reply, "successful") is False:
                return ToolFailure(message=f"Composio action {slug} failed: {_field(reply, 'error')}", code="composio_error")
            data = _field(reply, "data")
            return data if data is not None else reply

        description = str(_field(schema, "description") or _field(schema, "name") or slug)
        return cls(name=slug, description=description, func=execute, parameters=parameters, slug=slug,
                   user_id=user_id, **fields)
