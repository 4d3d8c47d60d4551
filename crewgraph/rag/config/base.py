"""``BaseRagConfig``: the search settings every vector-store config shares (CrewAI's names and defaults)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

__all__ = ["BaseRagConfig"]


@dataclass(frozen=True, config=ConfigDict(arbitrary_types_allowed=True, extra="forbid"))
class BaseRagConfig:
    """``limit`` results per search, kept when ``score >= score_threshold``; documents embedded ``batch_size`` at a time."""

    provider: str = field(default="", init=False)
    embedding_function: Any | None = field(default=None)
    limit: int = 5
    score_threshold: float = 0.6
    batch_size: int = 100
