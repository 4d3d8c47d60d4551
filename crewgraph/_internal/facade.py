"""The body of every module at a CrewAI import path: its names come from the path table.

A mirror module is ``__all__, __getattr__, __dir__ = facade(__name__)``. Names load on first
access and are cached on the module; a name the table declares absent raises ``ImportError``
saying why, so ``from crewgraph.x import Absent`` fails with the reason, not a bare
"cannot import name".
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from crewgraph._internal.crewai_paths import ABSENT, PATHS

__all__ = ["facade", "facade_getattr", "public_names", "resolve_target", "table_names"]


def resolve_target(where: str, name: str) -> Any:
    """The object a table entry points at: ``module`` (same name) or ``module:attribute``."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute or name)


def table_names(package: str) -> dict[str, str]:
    """The table's names for ``package`` -> where each lives, a ``"*"`` entry expanded."""
    entries = dict(PATHS.get(package, {}))
    whole = entries.pop("*", None)
    if whole is not None:
        entries = {**dict.fromkeys(importlib.import_module(whole).__all__, whole), **entries}
    return entries


def facade_getattr(package: str, exports: dict[str, str] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving ``exports`` (a package's own) and the table's names."""
    table = {**table_names(package), **(exports or {})}
    absent = ABSENT.get(package, {})

    def __getattr__(name: str) -> Any:
        where = table.get(name)
        if where is None:
            if name in absent:
                raise ImportError(f"{package}.{name} (CrewAI's crewai{package[len('crewgraph'):]}.{name}) "
                                  f"is not available in crewgraph: {absent[name]} (see docs/porting.md)",
                                  name=package)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = resolve_target(where, name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def public_names(names: Any) -> list[str]:
    """``names`` in the order ruff keeps ``__all__``: CONSTANTS, then Classes, then functions."""
    return sorted(names, key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n))


def facade(package: str) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for the mirror module ``package``."""
    names = public_names(table_names(package))

    def __dir__() -> list[str]:
        return sorted({*names, *vars(sys.modules[package])})

    return names, facade_getattr(package), __dir__
