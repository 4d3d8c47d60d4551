"""WaitTool: lets clock time pass (at most ``max_seconds`` a call) while a job elsewhere progresses.

An agent that started a build, a deployment or an async API job has no
other way to wait before checking it again. A longer request is cut to
``max_seconds`` and the result says so, so the model calls again rather
than failing. The async form sleeps without blocking the event loop.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic import BaseModel, Field

from crewgraph.tools.base_tool import BaseTool

__all__ = ["WaitTool", "WaitToolSchema"]

DEFAULT_MAX_SECONDS = 300.0


def _description(max_seconds: float) -> str:
    return (
        "Pause for a number of seconds before continuing. Use it when work started elsewhere (a build, a test "
        "run, a deployment, an async job that returned an id to poll, a rate limit cooling down) needs real "
        "time before its status can be checked again: start the job, wait, check, and wait again if it is "
        "still running. Waiting only lets time pass; it does not advance or check the job. "
        f"One call waits at most {max_seconds:g} seconds; call again for more."
    )


class WaitToolSchema(BaseModel):
    """Input for WaitTool."""

    seconds: float = Field(..., ge=0, description="How many seconds to wait before continuing.")
    reason: str | None = Field(default=None, description="Short note on what is being waited for (echoed back).")


class WaitTool(BaseTool):
    """Sleeps ``seconds`` (capped at ``max_seconds``) and reports how long it waited."""

    name: str = "Wait"
    description: str = _description(DEFAULT_MAX_SECONDS)
    args_schema: type[BaseModel] = WaitToolSchema
    max_seconds: float = Field(default=DEFAULT_MAX_SECONDS, gt=0, description="Longest wait of one call")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if "description" not in self.model_fields_set:
            self.description = _description(self.max_seconds)

    def _report(self, waited: float, requested: float, reason: str | None) -> str:
        parts = [f"Waited {waited:g} seconds."]
        if waited < requested:
            parts.append(
                f"Requested {requested:g} seconds, capped at {self.max_seconds:g} seconds per call - "
                "call this tool again if more waiting is needed."
            )
        if reason:
            parts.append(f"Reason: {reason}")
        return " ".join(parts)

    def _run(self, seconds: float, reason: str | None = None) -> str:
        waited = min(seconds, self.max_seconds)
        time.sleep(waited)
        return self._report(waited, seconds, reason)

    async def _arun(self, seconds: float, reason: str | None = None) -> str:
        waited = min(seconds, self.max_seconds)
        await asyncio.sleep(waited)
        return self._report(waited, seconds, reason)
