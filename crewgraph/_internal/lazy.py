"""Module-level ``__getattr__`` for curated namespaces whose members load on first access.

Several packages keep ``import crewgraph`` (and the first run) light by importing their
public names only when used; they all resolve names the same way, here.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``package`` that imports ``exports[name]`` and caches the value."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
