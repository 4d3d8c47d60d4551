"""Whose knowledge is whose: the crew's and each agent's ``Knowledge``, built once per definition.

The crew's knowledge lives in collection ``crew`` (``crew_<name>`` for a named crew),
an agent's in a collection named after its role (CrewAI's names). Each is built
once per definition and kept, so its store opens once per process and its
sources are indexed once.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["agent_knowledge", "crew_knowledge"]

_CACHE: dict[tuple[Any, ...], Any] = {}
_LOCK = threading.Lock()


def _knowledge(owner: Any, collection: str, sources: list[Any], embedder: Any) -> Any:
    from crewgraph.knowledge import Knowledge

    key = (getattr(owner, "id", id(owner)), collection, tuple(id(s) for s in sources), id(embedder), repr(embedder))
    with _LOCK:
        found = _CACHE.get(key)
        if found is None:
            found = _CACHE[key] = Knowledge(collection_name=collection, sources=list(sources), embedder=embedder)
        return found


def crew_knowledge(crew: Any) -> Any:
    """The crew's Knowledge: its ``knowledge`` object (CrewAI's), else one over its
    ``knowledge_sources``; None when it has neither."""
    given = getattr(crew, "knowledge", None)
    if given is not None:
        return given
    sources = list(getattr(crew, "knowledge_sources", None) or [])
    if not sources:
        return None
    name = getattr(crew, "name", None)
    collection = "crew" if not name or name == "crew" else f"crew_{name}"
    return _knowledge(crew, collection, sources, getattr(crew, "embedder", None))


def agent_knowledge(agent: Any, crew: Any = None) -> Any:
    """The agent's own Knowledge: its ``knowledge`` object, else one over its ``knowledge_sources``
    (its embedder, else the crew's); None when it has neither."""
    given = getattr(agent, "knowledge", None)
    if given is not None:
        return given
    sources = list(getattr(agent, "knowledge_sources", None) or [])
    if not sources:
        return None
    embedder = getattr(agent, "embedder", None)
    if embedder is None and crew is not None:
        embedder = getattr(crew, "embedder", None)
    return _knowledge(agent, str(agent.role), sources, embedder)
