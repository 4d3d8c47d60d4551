"""Flow state: an unstructured dict or a pydantic model, fresh for every kickoff.

A structured state stays an instance of the user's model (never a dict); it
always has an ``id`` -- :class:`FlowState` provides one, and a model without
an ``id`` field gets a cached subclass that adds it (still an instance of
the user's class). A dict state gets an ``"id"`` key. The id is what
``@persist`` stores the state under and what ``kickoff(inputs={"id": ...})``
restores.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any, get_args, get_origin

from pydantic import BaseModel, Field, create_model

__all__ = [
    "FlowState",
    "apply_inputs",
    "new_state",
    "state_from_dict",
    "state_id",
    "state_to_dict",
    "state_type_from_bases",
]


def _new_id() -> str:
    return str(uuid.uuid4())


class FlowState(BaseModel):
    """Base for structured flow states: gives every state a unique ``id``."""

    id: str = Field(default_factory=_new_id, description="Unique id of this flow state")


_WITH_ID: dict[type[BaseModel], type[BaseModel]] = {}


def _with_id(model: type[BaseModel]) -> type[BaseModel]:
    if "id" in model.model_fields:
        return model
    sub = _WITH_ID.get(model)
    if sub is None:
        sub = create_model(
            model.__name__,
            __base__=model,
            __module__=model.__module__,
            id=(str, Field(default_factory=_new_id)),
        )
        _WITH_ID[model] = sub
    return sub


def state_type_from_bases(cls: type) -> Any:
    """The ``T`` of ``class MyFlow(Flow[T])`` (searching the class's bases), or None."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            args = get_args(base)
            if args and getattr(get_origin(base), "__name__", "") == "Flow":
                return args[0]
    return None


def new_state(template: Any, values: dict[str, Any]) -> dict[str, Any] | BaseModel:
    """A fresh state from ``template`` (a model class or instance, a dict, ``dict`` or None)
    with ``values`` applied and a new id unless ``values`` gives one."""
    if isinstance(template, BaseModel):
        data = {k: copy.deepcopy(v) for k, v in template if k != "id"}
        return _with_id(type(template)).model_validate({**data, **values})
    if isinstance(template, type) and issubclass(template, BaseModel):
        return _with_id(template).model_validate(values)
    base = copy.deepcopy(template) if isinstance(template, dict) else {}
    base.pop("id", None)
    state = {"id": _new_id(), **base}
    state.update(values)
    return state


def apply_inputs(state: dict[str, Any] | BaseModel, inputs: dict[str, Any]) -> dict[str, Any] | BaseModel:
    """``state`` with ``inputs`` set (a model is re-validated, so bad inputs fail early)."""
    if not inputs:
        return state
    if isinstance(state, BaseModel):
        return type(state).model_validate({**dict(state), **inputs})
    state.update(inputs)
    return state


def state_id(state: Any) -> str:
    value = state.get("id") if isinstance(state, dict) else getattr(state, "id", None)
    return str(value) if value is not None else ""


def state_to_dict(state: Any) -> dict[str, Any]:
    """JSON-able snapshot of the state (for persistence)."""
    if isinstance(state, BaseModel):
        return state.model_dump(mode="json")
    import json

    return dict(json.loads(json.dumps(state, default=str)))


def state_from_dict(template: Any, data: dict[str, Any]) -> dict[str, Any] | BaseModel:
    """Rebuild a saved state as the flow's state type."""
    if isinstance(template, BaseModel):
        return _with_id(type(template)).model_validate(data)
    if isinstance(template, type) and issubclass(template, BaseModel):
        return _with_id(template).model_validate(data)
    return dict(data)
