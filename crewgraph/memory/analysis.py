"""The memory's LLM calls: save analysis, consolidation, extraction, query analysis, exploration.

Every call asks for a small pydantic model through ``BaseLLM.acall(...,
response_model=...)`` and *never raises*: on any failure (no key, network,
rate limit, unparsable answer, even failing to build the model client) it
logs a warning and returns the documented safe default, so saving and
recalling keep working without an LLM. Only storage and embedder errors
propagate out of :class:`~crewgraph.memory.Memory`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crewgraph._internal.usage_scope import record_usage
from crewgraph.memory.types import MemoryRecord

__all__ = [
    "Analyst",
    "ConsolidationAction",
    "ConsolidationPlan",
    "ExplorationResult",
    "ExtractedMemories",
    "ExtractedMetadata",
    "MemoryAnalysis",
    "QueryAnalysis",
]

_logger = logging.getLogger("crewgraph.memory")
M = TypeVar("M", bound=BaseModel)


class ExtractedMetadata(BaseModel):
    """Entities, dates and topics found in a memory (a fixed schema: strict JSON modes need one)."""

    model_config = ConfigDict(extra="forbid")
    entities: list[str] = Field(default_factory=list, description="People, organisations, places, products.")
    dates: list[str] = Field(default_factory=list, description="Dates or time references.")
    topics: list[str] = Field(default_factory=list, description="Topics or themes.")


class MemoryAnalysis(BaseModel):
    """Where a memory belongs and how much it matters."""

    suggested_scope: str = Field(description="Best existing scope, or a new path like /project/alpha.")
    categories: list[str] = Field(default_factory=list, description="1-3 short lowercase categories.")
    importance: float = Field(default=0.5, ge=0.0, le=1.0, description="0 trivial .. 1 critical.")
    extracted_metadata: ExtractedMetadata = Field(default_factory=ExtractedMetadata)

    @field_validator("importance", mode="before")
    @classmethod
    def _scale(cls, value: Any) -> Any:
        # Models sometimes answer on a 1-10 or 0-100 scale; keep the answer rather than fail.
        if isinstance(value, int | float) and value > 1:
            return min(float(value) / (10.0 if value <= 10 else 100.0), 1.0)
        return value


class ConsolidationAction(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["keep", "update", "delete"]
    record_id: str

    @field_validator("action", mode="before")
    @classmethod
    def _synonyms(cls, value: Any) -> Any:
        text = str(value).strip().lower()
        return {"merge": "update", "replace": "update", "remove": "delete", "drop": "delete"}.get(text, text)
    new_content: str | None = Field(default=None, description="Merged text; required for 'update'.")
    reason: str = ""


class ConsolidationPlan(BaseModel):
    """What to do with similar existing records, and whether to insert the new one."""

    model_config = ConfigDict(extra="forbid")
    actions: list[ConsolidationAction] = Field(default_factory=list)
    insert_new: bool = True
    insert_reason: str = ""


class ExtractedMemories(BaseModel):
    memories: list[str] = Field(default_factory=list, description="Short, self-contained facts.")


class QueryAnalysis(BaseModel):
    """How to search for a long query."""

    keywords: list[str] = Field(default_factory=list)
    suggested_scopes: list[str] = Field(default_factory=list, description="Subset of the available scopes.")
    complexity: Literal["simple", "complex"] = "simple"

    @field_validator("complexity", mode="before")
    @classmethod
    def _complexity(cls, value: Any) -> Any:
        return "complex" if str(value).strip().lower() in {"complex", "hard", "high", "multi-hop"} else "simple"

    recall_queries: list[str] = Field(default_factory=list, description="1-3 short search phrases.")
    time_filter: str | None = Field(default=None, description="ISO date of the earliest relevant record, or null.")


class ExplorationResult(BaseModel):
    """One exploration round: what is still missing and new phrases to search for."""

    follow_up_queries: list[str] = Field(default_factory=list, description="1-3 new search phrases.")
    missing: str | None = Field(default=None, description="What the excerpts do not answer, or null.")


_SAVE_SYSTEM = (
    "You file memories for an AI agent team. Given one memory, choose its scope (a path "
    "like /project/alpha; prefer an existing scope, create a new one only if none fits, keep it "
    "2-3 levels deep), 1-3 categories (prefer existing ones), an importance from 0 to 1, and "
    "the entities, dates and topics it mentions."
)
_CONSOLIDATE_SYSTEM = (
    "You keep an agent memory free of duplicates and stale facts. Given a new memory and "
    "similar existing records, decide per record: keep (still accurate, not redundant), "
    "update (merge the new information; give new_content), or delete (outdated or "
    "contradicted). Set insert_new to false when the new memory adds nothing beyond the records."
)
_EXTRACT_SYSTEM = (
    "Split the text into discrete, self-contained facts worth remembering (decisions, "
    "numbers, names, preferences, outcomes). Each fact must make sense on its own. Skip filler."
)
_QUERY_SYSTEM = (
    "You plan memory searches. Distill the query into 1-3 short search phrases, list key "
    "entities, pick the relevant scopes among those available, say whether answering needs "
    "aggregation or reasoning (complex) or one fact (simple), and give an ISO date if the query "
    "limits time (e.g. 'last week'), else null."
)
_EXPLORE_SYSTEM = (
    "You look for missing evidence in an agent memory. Given a query and the best memory "
    "excerpts found so far, say in one line what is still missing (or null) and propose 1-3 "
    "new short search phrases that could find it."
)


def _default_analysis(importance: float) -> MemoryAnalysis:
    return MemoryAnalysis(suggested_scope="/", categories=[], importance=importance)


class Analyst:
    """The memory's LLM calls, with their failure defaults.

    ``llm_factory`` returns the model client; it is called lazily (inside the
    guarded call) so a missing API key degrades like any other LLM failure.
    """

    def __init__(self, llm_factory: Callable[[], Any], default_importance: float = 0.5) -> None:
        self._llm_factory = llm_factory
        self.default_importance = default_importance
        self._warned: set[str] = set()

    def _warn(self, what: str, exc: BaseException) -> None:
        # Warn once per kind of failure per memory; later ones at debug level (no log spam).
        level = logging.DEBUG if what in self._warned else logging.WARNING
        self._warned.add(what)
        _logger.log(level, "Memory %s failed, using safe defaults: %s: %s", what, type(exc).__name__, exc)

    async def _ask(self, system: str, user: str, model: type[M]) -> M:
        llm = self._llm_factory()
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        from crewgraph.llm.base import BaseLLM
        from crewgraph.llm.front_door import invoke

        if isinstance(llm, BaseLLM):  # a user's call()/acall() override is what answers
            response = await invoke(llm, messages, response_model=model)
        else:
            response = await llm.acall(messages, response_model=model)
        record_usage(getattr(response, "usage", None))  # counted in a surrounding flow's usage_metrics
        parsed = getattr(response, "parsed", None)
        if isinstance(parsed, model):
            return parsed
        if isinstance(parsed, BaseModel):
            return model.model_validate(parsed.model_dump())
        content = getattr(response, "content", None)
        if isinstance(content, str) and content.strip():
            return model.model_validate(json.loads(content))
        raise ValueError(f"the model returned no {model.__name__}")

    async def analyze_for_save(
        self, content: str, existing_scopes: list[str], existing_categories: list[str]
    ) -> MemoryAnalysis:
        """Scope/categories/importance/metadata; on failure scope "/", no categories, default importance."""
        user = (
            f"Memory:\n{content}\n\nExisting scopes: {existing_scopes or ['/']}\n"
            f"Existing categories: {existing_categories or []}"
        )
        try:
            return await self._ask(_SAVE_SYSTEM, user, MemoryAnalysis)
        except Exception as exc:
            self._warn("save analysis", exc)
            return _default_analysis(self.default_importance)

    async def plan_consolidation(self, new_content: str, similar: list[MemoryRecord]) -> ConsolidationPlan:
        """keep/update/delete per similar record + insert_new; on failure just insert."""
        if not similar:
            return ConsolidationPlan()
        lines = [
            f"- id={r.id} | scope={r.scope} | importance={r.importance:.2f} | "
            f"created={r.created_at.date().isoformat()}\n  content: {r.content[:500]}"
            for r in similar
        ]
        user = f"New memory:\n{new_content}\n\nSimilar existing records:\n" + "\n".join(lines)
        try:
            return await self._ask(_CONSOLIDATE_SYSTEM, user, ConsolidationPlan)
        except Exception as exc:
            self._warn("consolidation", exc)
            return ConsolidationPlan()

    async def extract_memories(self, content: str) -> list[str]:
        """Atomic facts from raw text; on failure the whole text as one memory."""
        if not content.strip():
            return []
        try:
            result = await self._ask(_EXTRACT_SYSTEM, content, ExtractedMemories)
            facts = [m.strip() for m in result.memories if m and m.strip()]
            return facts or [content]
        except Exception as exc:
            self._warn("extraction", exc)
            return [content]

    async def analyze_query(self, query: str, available_scopes: list[str]) -> QueryAnalysis | None:
        """Search plan for a long query; ``None`` on failure (recall then does a plain search)."""
        user = f"Query:\n{query}\n\nAvailable scopes: {available_scopes or ['/']}"
        try:
            return await self._ask(_QUERY_SYSTEM, user, QueryAnalysis)
        except Exception as exc:
            self._warn("query analysis", exc)
            return None

    async def explore(self, query: str, excerpts: list[str]) -> ExplorationResult | None:
        """New search phrases for a low-confidence recall; ``None`` on failure (stop exploring)."""
        body = "\n---\n".join(excerpts) if excerpts else "(nothing found yet)"
        user = f"Query:\n{query}\n\nBest excerpts so far:\n{body}"
        try:
            return await self._ask(_EXPLORE_SYSTEM, user, ExplorationResult)
        except Exception as exc:
            self._warn("recall exploration", exc)
            return None
