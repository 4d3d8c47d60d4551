"""``and_`` / ``or_``: combine the triggers a flow listener waits for.

A condition is plain data (method names and router labels); the compiler turns
it into ``join`` nodes. Items may be flow methods (the function object or its
name), router labels (strings) or nested conditions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = ["Condition", "FlowCondition", "and_", "or_"]


@dataclass(frozen=True)
class FlowCondition:
    """``type`` ("AND"/"OR", as CrewAI spells it) over ``conditions``."""

    type: Literal["AND", "OR"]
    conditions: tuple[str | Callable[..., Any] | FlowCondition, ...]

    def __post_init__(self) -> None:
        if not self.conditions:
            raise ValueError(f"{self.type.lower()}_() needs at least one method or label")
        for item in self.conditions:
            if not (isinstance(item, str | FlowCondition) or callable(item)):
                raise ValueError(
                    f"invalid item {item!r} in {self.type.lower()}_(): "
                    "use flow methods, their names, router labels or nested and_/or_"
                )


Condition: TypeAlias = "str | Callable[..., Any] | FlowCondition"
"""What a decorator accepts as a trigger."""


def or_(*conditions: str | Callable[..., Any] | FlowCondition) -> FlowCondition:
    """Fire when any of ``conditions`` fires. A listener of several methods runs once,
    on the first; arriving again through a router label (a loop) runs it again."""
    return FlowCondition("OR", tuple(conditions))


def and_(*conditions: str | Callable[..., Any] | FlowCondition) -> FlowCondition:
    """Fire when every one of ``conditions`` has fired (then wait for all of them again)."""
    return FlowCondition("AND", tuple(conditions))
