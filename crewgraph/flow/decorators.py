"""``@start``, ``@listen``, ``@router``: mark the methods of a Flow and what triggers them.

The decorators return the function itself with a :class:`FlowMark` attached,
so a decorated method stays an ordinary method (callable, inspectable,
usable as another method's trigger). The Flow class reads the marks when it
is defined and compiles them; stacking decorators merges their marks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from crewgraph.flow.conditions import FlowCondition

__all__ = ["MARK", "PERSIST", "FlowMark", "get_mark", "listen", "router", "start"]

F = TypeVar("F", bound=Callable[..., Any])

MARK = "__crewgraph_flow__"
PERSIST = "__crewgraph_persist__"
"""Attribute ``@persist`` sets on a class or method (read without importing sqlite)."""


@dataclass
class FlowMark:
    """What the decorators said about one method."""

    start: bool = False
    router: bool = False
    conditions: list[str | Callable[..., Any] | FlowCondition] = field(default_factory=list)
    labels: tuple[str, ...] | None = None


def get_mark(obj: Any) -> FlowMark | None:
    mark = getattr(obj, MARK, None)
    return mark if isinstance(mark, FlowMark) else None


def _check(condition: Any, decorator: str) -> None:
    if not (isinstance(condition, str | FlowCondition) or callable(condition)):
        raise ValueError(
            f"@{decorator}() takes a flow method, a method name or router label, or and_/or_; "
            f"got {condition!r}"
        )


def _marked(fn: F, **changes: Any) -> F:
    mark = get_mark(fn)
    if mark is None:
        mark = FlowMark()
        setattr(fn, MARK, mark)
    condition = changes.pop("condition", None)
    if condition is not None:
        mark.conditions.append(condition)
    for key, value in changes.items():
        setattr(mark, key, value)
    return fn


def start(condition: str | Callable[..., Any] | FlowCondition | None = None) -> Any:
    """Mark an entry method: it runs when the flow is kicked off (all starts run concurrently).

    With a ``condition`` (a method, a router label, and_/or_) it also runs each time
    that condition fires -- the way to loop back to the beginning. ``@start`` without
    parentheses works too.
    """
    if callable(condition) and not isinstance(condition, FlowCondition) and get_mark(condition) is None:
        return _marked(condition, start=True)  # bare @start
    if condition is not None:
        _check(condition, "start")

    def decorator(fn: F) -> F:
        return _marked(fn, start=True, condition=condition)

    return decorator


def listen(condition: str | Callable[..., Any] | FlowCondition) -> Callable[[F], F]:
    """Run the method when ``condition`` fires; it receives the trigger's output if it
    takes a parameter."""
    _check(condition, "listen")

    def decorator(fn: F) -> F:
        return _marked(fn, condition=condition)

    return decorator


def router(
    condition: str | Callable[..., Any] | FlowCondition | None = None,
    *,
    emit: Iterable[str] | None = None,
    labels: Iterable[str] | None = None,
) -> Callable[[F], F]:
    """Like ``@listen``, but the method's return value is a label: the methods listening
    to that label run next (and receive the router's own trigger output).

    The labels a router may return are read from a ``Literal[...]`` (or Enum) return
    annotation, else from its ``return "label"`` statements; ``emit=[...]`` (CrewAI's
    name; ``labels=`` is an alias) declares them outright, and then returning any other
    label is an error naming the router. They let the compiler warn about labels
    nobody listens to.
    """
    if condition is not None:
        _check(condition, "router")
    if emit is not None and labels is not None:
        raise ValueError("@router() takes emit=[...] or labels=[...], not both (they mean the same)")
    given = emit if emit is not None else labels
    if isinstance(given, str):
        raise ValueError(f"@router(emit=...) takes a list of labels, got the string {given!r}")
    declared = tuple(given) if given is not None else None
    if declared is not None and not all(isinstance(x, str) and x for x in declared):
        raise ValueError(f"@router(emit=...) labels must be non-empty strings, got {list(declared)!r}")

    def decorator(fn: F) -> F:
        return _marked(fn, router=True, condition=condition, labels=declared)

    return decorator
