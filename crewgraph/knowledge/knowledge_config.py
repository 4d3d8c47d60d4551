"""``KnowledgeConfig``: how much knowledge a task gets (CrewAI's fields and defaults)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_EMBEDDER_SCORE_THRESHOLD", "KnowledgeConfig", "uses_default_embedder"]

DEFAULT_EMBEDDER_SCORE_THRESHOLD = 0.25
"""The least similarity a chunk needs when ``score_threshold`` is not set and the knowledge uses the
default (offline MiniLM) embedder. CrewAI's 0.35 is tuned for its own embedder; on MiniLM it drops
about a third of the chunks that answer a task (scripts/measure_knowledge_threshold.py; the
measurement is in docs/knowledge.md)."""


def uses_default_embedder(embedder_spec: object) -> bool:
    """Whether a knowledge collection's embedder config means the offline MiniLM default."""
    if not embedder_spec:
        return True
    if isinstance(embedder_spec, dict):
        provider = str(embedder_spec.get("provider") or "").strip().lower()
        return provider in {"onnx", "local", "default"}
    return False


class KnowledgeConfig(BaseModel):
    """``results_limit`` chunks at most, each at least ``score_threshold`` similar (cosine, -1..1).

    Left unset, ``score_threshold`` is CrewAI's 0.35 for a configured embedder and
    :data:`DEFAULT_EMBEDDER_SCORE_THRESHOLD` for the default one (``threshold_for``)."""

    model_config = ConfigDict(extra="forbid")

    results_limit: int = Field(default=3, ge=1, description="Most chunks retrieved per task")
    score_threshold: float = Field(default=0.35, ge=-1.0, le=1.0, description="Least cosine similarity kept")

    def threshold_for(self, embedder_specs: list[object]) -> float:
        """The threshold to search with: the one set, else the one that fits the embedders."""
        if "score_threshold" in self.model_fields_set:
            return self.score_threshold
        if embedder_specs and all(uses_default_embedder(spec) for spec in embedder_specs):
            return DEFAULT_EMBEDDER_SCORE_THRESHOLD
        return self.score_threshold
