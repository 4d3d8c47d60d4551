"""CrewAI's ``crewai.lite_agent``: an agent that works without a crew.

CrewAI's ``LiteAgent`` is an agent run on its own with ``kickoff(messages)``;
newer CrewAI versions fold it into ``Agent.kickoff``. Here both are the same
thing: ``LiteAgent`` is an ``Agent`` that may carry a default
``response_format`` for its kickoffs, and both return :class:`LiteAgentOutput`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from crewgraph.outputs import LiteAgentOutput
from crewgraph.spec.agent import Agent

__all__ = ["LiteAgent", "LiteAgentOutput"]


class LiteAgent(Agent):
    """An ``Agent`` meant for ``kickoff`` without a crew; ``response_format`` is its default."""

    response_format: type[BaseModel] | None = Field(
        default=None, description="The structured answer kickoff asks for unless it is given one"
    )

    @property
    def messages(self) -> list[Any]:
        """The conversation of the last kickoff (CrewAI's ``LiteAgent.messages``): ``last_messages``."""
        return self.last_messages

    @property
    def iterations(self) -> int:
        """The model turns of the last kickoff (CrewAI's ``LiteAgent.iterations``): its answers and
        tool-call turns, counted in ``messages`` (0 before the first kickoff)."""
        return sum(1 for m in self._last_messages if dict(m).get("role") == "assistant")

    def kickoff(
        self, messages: str | list[dict[str, Any]], response_format: type[BaseModel] | None = None,
        input_files: dict[str, Any] | None = None, from_checkpoint: Any = None,
    ) -> LiteAgentOutput:
        return super().kickoff(messages, response_format or self.response_format, input_files, from_checkpoint)

    async def kickoff_async(
        self, messages: str | list[dict[str, Any]], response_format: type[BaseModel] | None = None,
        input_files: dict[str, Any] | None = None, from_checkpoint: Any = None,
    ) -> LiteAgentOutput:
        return await super().kickoff_async(messages, response_format or self.response_format, input_files,
                                           from_checkpoint)
