"""``UsageMetrics``: token accounting, the one output model a crew *definition* holds.

It lives apart from :mod:`crewgraph.outputs` (which re-exports it) so that defining
a crew (``Crew.usage_metrics`` is a field) does not build the task and crew output
models at import time: ``from crewgraph import Agent, Task, Crew, Process, LLM``
stays within 1.5x of ``from pydantic import BaseModel`` (issue 18).
"""

# No `from __future__ import annotations` here: pydantic evaluates string annotations with
# compile()+eval() per field at class creation, about half of this module's import cost
# (issue 18's import budget). Names only known to type checkers are quoted instead.

from pydantic import BaseModel, ConfigDict

__all__ = ["UsageMetrics"]


class UsageMetrics(BaseModel):
    """Token accounting, summed per LLM call, per task and per crew."""

    model_config = ConfigDict(defer_build=True)

    total_tokens: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    successful_requests: int = 0

    def add(self, other: "UsageMetrics | None") -> "UsageMetrics":
        """Return a new UsageMetrics that is the sum of ``self`` and ``other``."""
        if other is None:
            return self.model_copy()
        return UsageMetrics(
            total_tokens=self.total_tokens + other.total_tokens,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            cached_prompt_tokens=self.cached_prompt_tokens + other.cached_prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            successful_requests=self.successful_requests + other.successful_requests,
        )

    def __add__(self, other: "UsageMetrics") -> "UsageMetrics":
        return self.add(other)
