"""The run-wide tool result cache: one entry per (tool, canonical arguments).

Canonical JSON (validated values, sorted keys) makes ``{"a": 1, "b": "2"}``
and ``{"b": 2, "a": "1"}`` the same call when the schema coerces them alike.
The tool is the instance, not just its name: ``FileReadTool(file_path="a.txt")``
and ``FileReadTool(file_path="b.txt")`` share a name and (empty) arguments,
and one must never answer with the other's cached result. One instance given
to several agents shares its entries.
Entries live in ``RunState.tool_cache``, read and written under its lock,
because parallel tool nodes share it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import BaseModel

from crewgraph.graph.run_state import RunState

__all__ = ["CachedResult", "cache_key", "lookup", "store"]

logger = logging.getLogger("crewgraph.tools")

CachedResult = tuple[str, Any]
"""(text the model read, the tool's raw value)."""


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
"""What ``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)``
would build anew on every call."""


def cache_key(tool: Any, kwargs: dict[str, Any]) -> tuple[str, str]:
    """``("<tool name>#<instance>", canonical arguments JSON)``."""
    plain = {k: _plain(v) for k, v in kwargs.items()}
    return (f"{tool.name}#{id(tool):x}", _CANONICAL.encode(plain))


def lookup(state: RunState, key: tuple[str, str]) -> CachedResult | None:
    with state.lock:
        entry = state.tool_cache.get(key)
    if isinstance(entry, tuple) and len(entry) == 2:
        return entry
    if isinstance(entry, str):  # written by something that only stored text
        return (entry, entry)
    return None


def store(
    state: RunState,
    key: tuple[str, str],
    arguments: dict[str, Any],
    result: CachedResult,
    allowed: Any,
) -> bool:
    """Store unless ``allowed(args, raw)`` (the tool's cache_function) says no; never raises."""
    try:
        ok = bool(allowed(dict(arguments), result[1]))
    except Exception as exc:
        logger.warning("cache_function of tool %r raised %r; result not cached", key[0].rpartition("#")[0], exc)
        return False
    if ok:
        with state.lock:
            state.tool_cache[key] = result
    return ok
