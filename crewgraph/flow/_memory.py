"""Memory inside flow methods: ``self.remember``, ``self.recall``, ``self.extract_memories``.

A flow uses its ``memory`` (class attribute or ``Flow(memory=...)``: a Memory,
MemoryScope or MemorySlice); without one it builds a default
``crewgraph.memory.Memory(root_scope="/flow/<flow name>")`` on first use -- never at import or kickoff, so a
flow that does not remember anything loads no storage or embedder.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["FlowMemoryMixin"]

_MISSING: Any = object()


def _default_memory(flow_name: str) -> Any:
    import importlib

    # Looked up at call time: the memory package (storage, embedder) loads only here. CrewAI's
    # default flow memory lives under /flow/<flow name>, so flows sharing a store stay apart.
    return importlib.import_module("crewgraph.memory").Memory(root_scope=f"/flow/{flow_name.strip('/')}")


class FlowMemoryMixin:
    """The memory methods of Flow (kept apart to keep the facade small).

    ``flow.memory`` is the flow's memory: the one given (``Flow(memory=...)``, a class
    attribute, or assigned), else a default ``Memory(root_scope="/flow/<flow name>")`` created on
    first access (CrewAI's default root scope for a flow).
    ``memory=None`` given explicitly turns memory off: ``flow.memory`` is then None and
    ``remember``/``recall``/``extract_memories`` raise ValueError.
    """

    _memory_lock = threading.Lock()

    @property
    def memory(self) -> Any:
        found = self.__dict__.get("_memory_obj", _MISSING)
        if found is _MISSING:
            with FlowMemoryMixin._memory_lock:
                found = self.__dict__.get("_memory_obj", _MISSING)
                if found is _MISSING:
                    name = getattr(self, "flow_name", None) or type(self).__name__
                    found = self.__dict__["_memory_obj"] = _default_memory(str(name))
        return found

    @memory.setter
    def memory(self, value: Any) -> None:
        self.__dict__["_memory_obj"] = value

    def _flow_memory(self) -> Any:
        found = self.memory
        if found is None:
            raise ValueError(
                f"flow {type(self).__name__!r} has no memory (memory=None was given); "
                "pass Flow(memory=Memory(...)) or leave memory unset for the default one"
            )
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
        found = self.__dict__.get("_memory_obj") or getattr(type(self), "memory", None)
        if found is not None and not isinstance(found, property) and hasattr(found, "drain_writes"):
            found.drain_writes()
