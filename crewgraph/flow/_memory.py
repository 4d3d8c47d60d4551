"""Memory inside flow methods: ``self.remember``, ``self.recall``, ``self.extract_memories``.

A flow uses its ``memory`` (class attribute or ``Flow(memory=...)``: a Memory,
MemoryScope or MemorySlice); without one it builds a default
``crewgraph.memory.Memory()`` on first use -- never at import or kickoff, so a
flow that does not remember anything loads no storage or embedder.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["FlowMemoryMixin"]


def _default_memory() -> Any:
    import importlib

    # Looked up at call time: the memory package (storage, embedder) loads only here.
    return importlib.import_module("crewgraph.memory").Memory()


class FlowMemoryMixin:
    """The memory methods of Flow (kept apart to keep the facade small)."""

    memory: Any = None
    _memory_lock = threading.Lock()

    def _flow_memory(self) -> Any:
        found = self.__dict__.get("_memory_obj")
        if found is not None:
            return found
        with FlowMemoryMixin._memory_lock:
            found = self.__dict__.get("_memory_obj")
            if found is None:
                found = self.memory if self.memory is not None else _default_memory()
                self.__dict__["_memory_obj"] = found
        return found

    def remember(self, content: str, **kwargs: Any) -> Any:
        """Save ``content`` to the flow's memory (``scope=``, ``categories=``, ``importance=``...)."""
        return self._flow_memory().remember(content, **kwargs)

    def remember_many(self, contents: list[str], **kwargs: Any) -> Any:
        """Save several memories in the background (``recall`` waits for them)."""
        return self._flow_memory().remember_many(contents, **kwargs)

    def recall(self, query: str, **kwargs: Any) -> list[Any]:
        """Search the flow's memory (``limit=``, ``scope=``, ``depth=``...); returns matches."""
        return list(self._flow_memory().recall(query, **kwargs))

    def extract_memories(self, content: str) -> list[str]:
        """Split raw text (e.g. a crew's output) into discrete facts worth remembering."""
        return list(self._flow_memory().extract_memories(content))

    def _drain_memory(self) -> None:
        found = self.__dict__.get("_memory_obj")
        if found is not None and hasattr(found, "drain_writes"):
            found.drain_writes()
