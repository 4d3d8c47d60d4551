"""``KnowledgeConfig``: how much knowledge a task gets (CrewAI's fields and defaults)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["KnowledgeConfig"]


class KnowledgeConfig(BaseModel):
    """``results_limit`` chunks at most, each at least ``score_threshold`` similar (cosine, -1..1)."""

    model_config = ConfigDict(extra="forbid")

    results_limit: int = Field(default=3, ge=1, description="Most chunks retrieved per task")
    score_threshold: float = Field(default=0.35, ge=-1.0, le=1.0, description="Least cosine similarity kept")
