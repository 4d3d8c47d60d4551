"""CrewAI's ``EncodingFlow``: the memory save pipeline as a Flow, one step per stage.

``Memory.remember``/``remember_many`` run this pipeline directly (``memory/_encoding.py``); the
flow is the same stages on crewgraph's flow engine, for code that drives an encoding itself
(CrewAI's memory internals, a custom store). Its state holds the items to save; kickoff runs:

1. ``batch_embed`` -- one embedder call for every item;
2. ``intra_batch_dedup`` -- near-exact duplicates of the batch are dropped (no model call);
3. ``parallel_find_similar`` -- the stored records like each item (same source, same subtree);
4. ``parallel_analyze`` -- the model fills in what the caller left out (scope, categories,
   importance) and plans the consolidation with similar records, concurrently;
5. ``execute_plans`` -- updates and deletes applied, new records written in one upsert.

Each item's ``result_record`` is then its new (or kept, or updated) record, and the state counts
what was inserted, updated, deleted and dropped.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any
from uuid import uuid4

from pydantic import BaseModel, ConfigDict, Field

from crewgraph.flow import Flow, listen, start
from crewgraph.memory import _encoding as enc
from crewgraph.memory.analysis import Analyst
from crewgraph.memory.types import MemoryConfig, MemoryRecord, embed_texts

__all__ = ["EncodingFlow", "EncodingState", "ItemState"]


class ItemState(BaseModel):
    """One memory to save: what the caller gave, and what the pipeline made of it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    content: str = ""
    scope: str | None = None
    categories: list[str] | None = None
    metadata: dict[str, Any] | None = None
    importance: float | None = None
    source: str | None = None
    private: bool = False
    root_scope: str | None = None
    dropped: bool = False
    top_similarity: float = 0.0
    result_record: MemoryRecord | None = None


class EncodingState(BaseModel):
    """The batch: its items and what the save did."""

    id: str = Field(default_factory=lambda: str(uuid4()))
    items: list[ItemState] = Field(default_factory=list)
    records_inserted: int = 0
    records_updated: int = 0
    records_deleted: int = 0
    items_dropped_dedup: int = 0


class EncodingFlow(Flow[EncodingState]):
    """Encodes ``state.items`` into ``storage`` (see the module docstring). ``storage`` is a
    memory ``StorageBackend``; ``llm`` a model name or ``BaseLLM`` (the analysis); ``embedder`` a
    callable ``list[str] -> vectors``; ``config`` the memory's knobs."""

    initial_state = EncodingState

    def __init__(self, storage: Any, llm: Any, embedder: Any, config: MemoryConfig | None = None,
                 **flow_settings: Any) -> None:
        flow_settings.setdefault("memory", None)  # the memory's own pipeline needs no memory of its own
        super().__init__(**flow_settings)
        from crewgraph.llm import as_llm

        self._storage = storage
        self._llm = llm if not isinstance(llm, str) else as_llm(llm)
        self._embedder = embedder
        self._config = config or MemoryConfig()
        self._analyst = Analyst(lambda: self._llm, self._config.default_importance)
        self._work: list[tuple[ItemState, enc.SaveRequest, enc._Item]] = []

    def _embed(self, texts: list[str]) -> list[list[float]]:
        return embed_texts(self._embedder, texts)

    @start()
    def batch_embed(self) -> None:
        """Embed every item in one embedder call."""
        items = [it for it in self.state.items if it.content and it.content.strip()]
        vectors = self._embed([it.content.strip() for it in items]) if items else []
        self._work = [(it, _request(it), enc._Item(it.content.strip(), v)) for it, v in zip(items, vectors, strict=True)]

    @listen(batch_embed)
    def intra_batch_dedup(self) -> None:
        """Drop the items nearly identical to an earlier one of the batch."""
        kept = {id(item) for item in enc._dedup([w[2] for w in self._work], self._config.batch_dedup_threshold)}
        for state, _, item in self._work:
            if id(item) not in kept:
                state.dropped = True
                self.state.items_dropped_dedup += 1
        self._work = [w for w in self._work if not w[0].dropped]

    @listen(intra_batch_dedup)
    def parallel_find_similar(self) -> None:
        """Find each item's similar stored records (and an identical one, kept as it is)."""
        for state, req, item in self._work:
            enc._find_similar(req, [item], self._storage, self._config)
            state.top_similarity = float(item.similar[0][1]) if item.similar else 0.0

    @listen(parallel_find_similar)
    async def parallel_analyze(self) -> None:
        """Ask the model, concurrently, for the missing fields and the consolidation plans."""
        threshold = self._config.consolidation_threshold
        jobs = []
        for _, req, item in self._work:
            if item.duplicate_of is not None:
                continue
            fields = [item] if not req.fields_given else []
            plan = [item] if item.similar and item.similar[0][1] >= threshold else []
            if fields or plan:
                jobs.append(enc._analyze(req, fields, plan, self._analyst, self._storage, self._config))
        await asyncio.gather(*jobs)

    @listen(parallel_analyze)
    def execute_plans(self) -> None:
        """Apply updates and deletes, write the new records, set each item's ``result_record``."""
        items = [w[2] for w in self._work]
        self.state.records_deleted += sum(1 for it in items for a in it.plan.actions if a.action == "delete")
        before = {id(it): it.result for it in items}
        enc._apply_plans(items, self._storage, self._embed)
        self.state.records_updated += sum(1 for it in items if it.result is not None and before[id(it)] is None)
        new: list[MemoryRecord] = []
        for state, req, item in self._work:
            if item.duplicate_of is not None:
                item.result = item.duplicate_of
            elif item.plan.insert_new:
                item.result = enc._new_record(req, item, self._config)
                new.append(item.result)
            elif item.result is None and item.similar:
                item.result = item.similar[0][0]
            state.result_record = item.result
        self._storage.save(new)
        self.state.records_inserted += len(new)


def _signature() -> inspect.Signature:
    """``__init__``'s real signature: its own parameters, then every Flow setting it passes on."""
    own = list(inspect.signature(EncodingFlow.__init__).parameters.values())[:-1]  # without **flow_settings
    names = {p.name for p in own}
    settings = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY, default=None if p.name == "memory" else p.default)
                for p in inspect.signature(Flow.__init__).parameters.values()
                if p.name not in names and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    rest = inspect.Parameter("state_values", inspect.Parameter.VAR_KEYWORD)
    return inspect.Signature([*own, *settings, rest])


EncodingFlow.__init__.__signature__ = _signature()  # type: ignore[attr-defined]


def _request(item: ItemState) -> enc.SaveRequest:
    return enc.SaveRequest([item.content], item.scope, item.root_scope, item.categories, item.metadata,
                           item.importance, item.source, item.private)
