"""A flow state model from a ``json_schema`` state contract (``state: {type: json_schema}``).

The model has one field per property, typed from the schema (string, integer,
number, boolean, array, object; anything else is ``Any``), defaulting to the
declared ``default`` or None, so the state can exist before kickoff supplies
its inputs; a ``required`` property still None when the flow starts is a
clear error naming it (checked by the first method, see :func:`missing_required`).
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from crewgraph.errors import ConfigurationError

__all__ = ["missing_required", "model_from_schema"]

_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool,
                          "array": list, "object": dict}
REQUIRED = "__crewgraph_required__"


class _OpenState(BaseModel):
    """Base of schema-built states: an ``id`` (as every flow state) and extra keys kept."""

    model_config = ConfigDict(extra="allow")
    id: str = Field(default_factory=lambda: str(uuid.uuid4()))


def model_from_schema(name: str, schema: dict[str, Any], default: dict[str, Any], where: str) -> Any:
    """A model instance (holding the defaults) for the schema's properties."""
    properties = schema.get("properties") or {}
    if schema.get("type", "object") != "object" or not isinstance(properties, dict):
        raise ConfigurationError(f"{where}.json_schema: a state schema is an object with properties")
    fields: dict[str, Any] = {}
    for key, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        py = _TYPES.get(kind, Any) if isinstance(kind, str) else Any
        fields[key] = (py | None if py is not Any else Any, None)
    unknown = sorted(set(default) - set(properties))
    if unknown and schema.get("additionalProperties") is False:
        raise ConfigurationError(f"{where}.default: {', '.join(unknown)} not in the schema's properties")
    model = create_model(
        "".join(p[:1].upper() + p[1:] for p in name.replace("-", "_").split("_") if p) + "State",
        __base__=_OpenState,
        **fields,
    )
    setattr(model, REQUIRED, tuple(schema.get("required") or ()))
    try:
        return model(**default)
    except Exception as exc:
        raise ConfigurationError(f"{where}.default: {exc}") from None


def missing_required(state: Any) -> list[str]:
    """Required properties of a schema-built state that are still None."""
    names = getattr(type(state), REQUIRED, ()) if isinstance(state, BaseModel) else ()
    return [n for n in names if getattr(state, n, None) is None]
