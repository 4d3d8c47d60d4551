"""MultiOnTool: a web browser driven by natural-language instructions, through MultiOn (``MULTION_API_KEY``).

Each call is ``POST {base}/v1/web/browse`` with the ``X_MULTION_API_KEY``
header and ``{"cmd", "session_id", "local", "max_steps"}`` (plus ``url`` when
given), as MultiOn documents (its ``multion`` SDK sends the same; it is not
needed). The session is kept between calls, so a ``CONTINUE`` status means:
send the same instruction again. The answer is ``<message>\\n\\n STATUS:
<status>``, as in CrewAI. ``base_url=`` or ``MULTION_BASE_URL`` moves the API
(default ``https://api.multion.ai``).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["MultiOnTool"]


class MultiOnTool(HostedTool):
    """Browses the web following an instruction; keeps its session across calls."""

    name: str = "Multion Browse Tool"
    description: str = (
        "Multion gives the ability for LLMs to control web browsers using natural language instructions. "
        "If the status is 'CONTINUE', reissue the same instruction to continue execution"
    )
    session_id: str | None = Field(default=None, description="The browsing session (set by the first call)")
    local: bool = Field(default=False, description="Run in the local browser extension instead of MultiOn's cloud")
    max_steps: int = Field(default=3, ge=1, description="Most browser steps per call")
    timeout: float = Field(default=180.0, gt=0, description="Seconds allowed for each call")

    _service: ClassVar[str] = "MultiOn"
    _key_envs: ClassVar[tuple[str, ...]] = ("MULTION_API_KEY",)
    _base_env: ClassVar[str | None] = "MULTION_BASE_URL"
    _default_base: ClassVar[str] = "https://api.multion.ai"
    _unsupported: ClassVar[dict[str, str]] = {
        "multion": "the tool calls MultiOn's HTTP API itself; pass api_key=/base_url= instead of a client",
    }

    def _run(self, cmd: str, url: str | None = None) -> str | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        body: dict[str, object] = {"cmd": cmd, "session_id": self.session_id, "local": self.local,
                                   "max_steps": self.max_steps}
        if url:
            body["url"] = url
        reply = self._call("POST", "/v1/web/browse", headers={"X_MULTION_API_KEY": key}, json_body=body)
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message="MultiOn answered with something that is not an object", code="invalid_response")
        self.session_id = reply.get("session_id") or self.session_id
        return f"{reply.get('message')}\n\n STATUS: {reply.get('status')}"
