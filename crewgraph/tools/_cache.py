"""The run-wide tool result cache: one entry per (tool, canonical arguments).

Canonical JSON (validated values, sorted keys) makes ``{"a": 1, "b": "2"}``
and ``{"b": 2, "a": "1"}`` the same call when the schema coerces them alike.
The tool is the instance, not just its name: ``FileReadTool(file_path="a.txt")``
and ``FileReadTool(file_path="b.txt")`` share a name and (empty) arguments,
and one must never answer with the other's cached result. One instance given
to several agents shares its entries. A step run on a Ray worker gets a copy of the tool;
the copy keeps the driver instance's mark (``sent_as``), so the run shares one cache there too.
Entries live in ``RunState.tool_cache``, read and written under its lock,
because parallel tool nodes share it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import BaseModel

from crewgraph.graph.run_state import RunState

__all__ = ["CachedResult", "cache_key", "forget_sent", "instance_mark", "lookup", "sent_as", "store"]

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


_SENT_AS: dict[int, tuple[Any, str]] = {}
"""In a process that runs steps sent from another (a Ray worker): ``id`` of a tool unpickled
there -> (the tool, the instance mark it has where it came from)."""


def sent_as(tool: Any, mark: str) -> None:
    """``tool`` is a copy of the instance marked ``mark`` in the process that sent it: its
    cache entries are that instance's (so steps on any worker and the driver share them)."""
    _SENT_AS[id(tool)] = (tool, mark)


def forget_sent() -> None:
    """The step that brought the copies is over (its tools may go)."""
    _SENT_AS.clear()


def instance_mark(tool: Any) -> str:
    """What tells this tool instance from another of the same name, in the run's cache keys."""
    sent = _SENT_AS.get(id(tool)) if _SENT_AS else None
    if sent is not None and sent[0] is tool:
        return sent[1]
    return f"{id(tool):x}"


def cache_key(tool: Any, kwargs: dict[str, Any]) -> tuple[str, str]:
    """``("<tool name>#<instance>", canonical arguments JSON)``."""
    plain = {k: _plain(v) for k, v in kwargs.items()}
    return (f"{tool.name}#{instance_mark(tool)}", _CANONICAL.encode(plain))


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
