"""Make arbitrary node facts JSON-safe for the node-link exports.

``describe()`` and ``RunRecord.info`` are meant to be JSON-able, but they are
written by many node kinds; one odd value (a Path, a set, a pydantic model)
must not make ``to_json()`` fail, so unknown values degrade to their repr.
"""

from __future__ import annotations

from enum import Enum
from pathlib import PurePath
from typing import Any

__all__ = ["jsonable"]

_MAX_DEPTH = 20


def jsonable(value: Any, _depth: int = 0) -> Any:
    """A copy of ``value`` made only of dict/list/str/int/float/bool/None."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if _depth >= _MAX_DEPTH:
        return repr(value)
    if isinstance(value, Enum):
        return jsonable(value.value, _depth + 1)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v, _depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((jsonable(v, _depth + 1) for v in value), key=repr)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return jsonable(dump(mode="json"), _depth + 1)
        except Exception:
            return repr(value)
    return repr(value)
