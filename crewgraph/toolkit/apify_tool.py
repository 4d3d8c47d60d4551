"""ApifyActorsTool: run an Apify Actor and hand back its dataset items (``APIFY_API_TOKEN``).

One ``POST {base}/v2/acts/{actor}/run-sync-get-dataset-items`` (the Actor id's
``/`` written ``~``, as Apify's API wants) with the token as a Bearer header and
``run_input`` as the body: Apify runs the Actor, waits for it (up to
``timeout`` seconds) and answers with the items. ``APIFY_API_BASE_URL`` or
``base_url=`` moves the endpoint.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ApifyActorsTool", "ApifyActorsToolSchema"]


class ApifyActorsToolSchema(BaseModel):
    """Input for ApifyActorsTool."""

    run_input: dict[str, Any] = Field(
        default_factory=dict, description="The Actor's input, as described by its input schema"
    )


class ApifyActorsTool(HostedTool):
    """Calls one Actor (``actor_name``, e.g. ``"apify/rag-web-browser"``) per use."""

    name: str = "Apify Actor"
    description: str = "Run an Apify Actor and return the items of its default dataset."
    args_schema: type[BaseModel] = ApifyActorsToolSchema
    actor_name: str = Field(..., description="Actor id: 'username/actor-name' or its technical id")
    timeout: float = Field(default=300.0, gt=0, description="Seconds allowed for the Actor run")
    memory_mbytes: int | None = Field(default=None, ge=128, description="Memory for the run (Apify's default if unset)")

    _service: ClassVar[str] = "Apify"
    _key_envs: ClassVar[tuple[str, ...]] = ("APIFY_API_TOKEN",)
    _base_env: ClassVar[str | None] = "APIFY_API_BASE_URL"
    _default_base: ClassVar[str] = "https://api.apify.com"

    @field_validator("actor_name")
    @classmethod
    def _actor_id(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("actor_name must name an Actor, e.g. 'apify/rag-web-browser'")
        return value

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.name == "Apify Actor":
            self.name = f"Apify Actor {self.actor_name}"
            self.description = f"Run the Apify Actor {self.actor_name!r} with run_input and return its dataset items."

    def _run(self, run_input: dict[str, Any] | None = None) -> list[Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        actor = self.actor_name.replace("/", "~")
        params: dict[str, Any] = {"timeout": int(self.timeout)}
        if self.memory_mbytes:
            params["memory"] = self.memory_mbytes
        reply = self._call(
            "POST",
            f"/v2/acts/{actor}/run-sync-get-dataset-items",
            headers={"Authorization": f"Bearer {key}"},
            json_body=dict(run_input or {}),
            params=params,
        )
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, list):
            return ToolFailure(message=f"Apify answered with {type(reply).__name__}, not a list of items", code="invalid_response")
        return reply
