"""The state part of ``Flow``: which state a kickoff starts from, and where it is persisted.

Mixed into :class:`~crewgraph.flow.Flow`. A kickoff starts from the state
``__init__`` left (the first one), else a fresh state from the template plus
the constructor's values; ``inputs={"id": ...}`` restores a persisted state.
"""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from crewgraph.flow._spec import flow_methods
from crewgraph.flow.decorators import PERSIST
from crewgraph.flow.state import apply_inputs, new_state, state_from_dict, state_type_from_bases

__all__ = ["StateMixin"]


class StateMixin:
    """Building a kickoff's state and planning its persistence."""

    initial_state: Any
    checkpoint: Any
    if TYPE_CHECKING:
        @property
        def flow_name(self) -> str: ...
    _state: Any
    _initial: Any
    _init_values: dict[str, Any]
    _persistence: Any

    def _is_persisted(self) -> bool:
        return bool(self.checkpoint) or getattr(type(self), PERSIST, None) is not None

    def _state_template(self) -> Any:
        template = self.__dict__.get("initial_state", type(self).initial_state)
        if template is None:
            template = state_type_from_bases(type(self))
        if isinstance(template, BaseModel | dict):
            return template
        if isinstance(template, type) and issubclass(template, BaseModel):
            return template
        return None  # dict, Any, a TypeVar...: unstructured state

    def _prepare_state(self, inputs: dict[str, Any], stores: dict[str, tuple[Any, bool]]) -> None:
        first = self._initial is None
        if first:
            self._initial = copy.deepcopy(self._state)
        template = self._state_template() if not isinstance(self._initial, BaseModel | dict) else self._initial
        if "id" in inputs and stores:
            searched = list(dict.fromkeys(store for store, _ in stores.values()))
            for store in searched:
                saved = store.load_state(str(inputs["id"]))
                if saved is not None:
                    self._state = apply_inputs(state_from_dict(template, saved), inputs)
                    return
            # As CrewAI: not an error (the id may be new on purpose), but never silent --
            # a mistyped id would otherwise quietly restart a long process from scratch.
            # (A conversational turn's first one opens its session: nothing to warn about.)
            log = logging.getLogger("crewgraph.flow")
            (log.debug if self.__dict__.get("_fresh_run") else log.warning)(
                "flow %r: no saved state with id %r in %s; starting a fresh state with that id",
                self.flow_name,
                inputs["id"],
                ", ".join(map(repr, searched)),
            )
        if first:
            # The state __init__ built (and its id) is the first kickoff's state.
            self._state = apply_inputs(self._state, inputs)
            return
        self._state = new_state(template, {**self._init_values, **inputs})

    def _persistence_plan(self) -> dict[str, tuple[Any, bool]]:
        """Store per method name ('' = every method) from the ``@persist`` markers."""
        markers = {"": getattr(type(self), PERSIST, None)}
        if markers[""] is None and self.checkpoint:
            markers[""] = (None, False)  # checkpoint=True: @persist with the default store
        markers.update({n: getattr(fn, PERSIST, None) for n, fn in flow_methods(type(self)).items()})
        if not any(m is not None for m in markers.values()):
            return {}
        from crewgraph.flow.persistence import resolve

        plan: dict[str, tuple[Any, bool]] = {}
        for key, marker in markers.items():
            found = resolve(marker, self._persistence)
            if found is not None:
                plan[key] = found
        return plan
