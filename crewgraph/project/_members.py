"""Find a class's decorated members in definition order (base classes first)."""

from __future__ import annotations

from typing import Any

__all__ = ["marked_members"]


def marked_members(cls: type, marker: str) -> dict[str, Any]:
    """``{name: attribute}`` of every attribute of ``cls`` carrying ``marker``.

    Order is definition order, base classes first, so the tasks of a crew run
    in the order the user wrote them. A subclass that overrides a member keeps
    the member's original position; one that overrides it with an unmarked
    attribute removes it.
    """
    names: dict[str, None] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if getattr(value, marker, False) is True:
                names.setdefault(name, None)
    found: dict[str, Any] = {}
    for name in names:
        value = getattr(cls, name, None)
        if getattr(value, marker, False) is True:
            found[name] = value
    return found
