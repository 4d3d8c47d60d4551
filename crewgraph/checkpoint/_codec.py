"""Turning node outputs and info dicts into bytes/text for the database, and back.

Outputs are pickled because node outputs are arbitrary Python values
(TaskOutput with a pydantic model inside, tool results, flow state...) and a
resumed run must hand successors the *same* value. Loading a checkpoint
therefore unpickles it: only open checkpoint files you (or your own runs)
wrote, exactly as with any pickle.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

__all__ = ["dump_json", "dump_output", "load_json", "load_output"]


def dump_output(output: Any) -> tuple[bytes | None, str | None]:
    """``(blob, None)`` on success, ``(None, reason)`` if the value cannot be pickled.

    Any exception counts as "cannot pickle": objects fail with TypeError,
    AttributeError (local classes, lambdas), PicklingError or RecursionError
    depending on what they hold, and the caller only needs the reason.
    """
    try:
        return pickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL), None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"


def load_output(blob: bytes) -> Any:
    return pickle.loads(blob)


def _json_default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return repr(value)


def dump_json(value: dict[str, Any]) -> str:
    """JSON text of a meta/info dict; values JSON cannot hold are stored as their repr,
    so a stray object in ``info`` never fails a checkpoint."""
    return json.dumps(value, default=_json_default, sort_keys=True)


def load_json(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}
