"""The ``crewai`` / ``crewai_tools`` import alias: a finder at the end of ``sys.meta_path``.

Each CrewAI module is served as a small alias module whose attributes are read
from the crewgraph module the path table (``crewgraph._internal.crewai_paths``)
names, so ``crewai.Agent is crewgraph.Agent`` and there is one copy of every
class. The finder sits *after* the standard ones: an installed ``crewai`` (or
``crewai_tools``) is found first and is never shadowed.

The alias modules have an empty ``__path__``: they are packages (so their
submodules can be imported), but the standard path finder finds nothing in them
and every ``crewai.X.Y`` comes back here, never as a second copy of crewgraph's
file loaded under CrewAI's name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

from crewgraph._internal.crewai_paths import ABSENT_MODULES, MODULES, MOVED, NAMES, PACKAGES, PATHS

__all__ = ["AliasModule", "CrewAIFinder", "crewgraph_module_for", "real_package"]


def crewgraph_module_for(name: str) -> str | None:
    """The crewgraph module serving CrewAI's module ``name`` (None: not a CrewAI path)."""
    if name in MODULES:
        return MODULES[name]
    for prefix in sorted(MODULES, key=len, reverse=True):
        if name.startswith(prefix + "."):
            return MODULES[prefix] + name[len(prefix):]
    top = name.partition(".")[0]
    target = PACKAGES.get(top)
    return None if target is None else target + name[len(top):]


def real_package(top: str) -> str | None:
    """Where an installed ``top`` (``crewai``/``crewai_tools``) lives, found as a plain import would."""
    spec = importlib.machinery.PathFinder.find_spec(top)
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    return locations[0] if locations else (spec.origin or top)


def _absent(module: str) -> str | None:
    """Why crewgraph deliberately lacks ``module`` (the table's ABSENT_MODULES), if it does."""
    for prefix, why in ABSENT_MODULES.items():
        if module == prefix or module.startswith(prefix + "."):
            return why
    return None


class AliasModule(types.ModuleType):
    """CrewAI's module ``__name__``, reading its names from crewgraph's module ``__crewgraph__``."""

    __crewgraph__: str

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name not in ("__all__", "__version__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if not self.__crewgraph__:
            raise AttributeError(f"module {self.__name__!r} (a CrewAI package crewgraph has only submodules of) "
                                 f"has no attribute {name!r}")
        moved = MOVED.get(self.__name__, {}).get(name)
        if moved is not None:
            warnings.warn(
                f"`from {self.__name__} import {name}` is an old path: import {name} from {moved} "
                f"(crewgraph: {crewgraph_module_for(moved)})",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(importlib.import_module(crewgraph_module_for(moved) or moved), name)
        target = importlib.import_module(self.__crewgraph__)
        if name == "__all__":
            exported = list(getattr(target, "__all__", ()))
            renamed = {ours: theirs for theirs, ours in NAMES.items()}
            return [renamed.get(n, n) for n in exported]
        where = PATHS.get(self.__crewgraph__, {}).get(name)
        if where is not None:
            module, _, attribute = where.partition(":")
            return getattr(importlib.import_module(module), attribute or name)
        try:
            return getattr(target, NAMES.get(name, name))
        except AttributeError:
            raise AttributeError(
                f"module {self.__name__!r} (served by crewgraph's {self.__crewgraph__}) has no attribute {name!r}"
            ) from None

    def __dir__(self) -> list[str]:
        if not self.__crewgraph__:
            return sorted(super().__dir__())
        target = importlib.import_module(self.__crewgraph__)
        renamed = {ours: theirs for theirs, ours in NAMES.items()}
        return sorted({*super().__dir__(), *(renamed.get(n, n) for n in dir(target))})


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target  # "" for a package that only holds mapped submodules

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        served = f"served by crewgraph's {self.target}" if self.target else "holding only the submodules below"
        module = AliasModule(spec.name, f"CrewAI's {spec.name}, {served}.")
        module.__crewgraph__ = self.target
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        why = _absent(self.target) if self.target else None
        if why is not None:
            raise ImportError(f"{module.__name__} is not available in crewgraph: {why} (see docs/porting.md)",
                              name=module.__name__)
        served = importlib.import_module(self.target or "crewgraph")  # a broken module fails here
        # `os.path.dirname(crewai.__file__)` (finding files beside the package) reads crewgraph's
        module.__file__ = getattr(served, "__file__", None)


class CrewAIFinder(importlib.abc.MetaPathFinder):
    """Serves ``crewai``/``crewai_tools`` and their submodules from crewgraph (see the module doc)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        ours = crewgraph_module_for(fullname)
        if ours is None:
            return None
        parent = fullname.rpartition(".")[0]
        if parent and not isinstance(sys.modules.get(parent), AliasModule):
            return None  # a real crewai is imported: its submodules are its own
        try:
            found = importlib.util.find_spec(ours)
        except (ImportError, ValueError):
            found = None
        if found is None and _absent(ours) is not None:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(ours), is_package=True)
        if found is None:
            if not any(key.startswith(fullname + ".") for key in MODULES):
                return None
            ours = ""  # e.g. crewai.utilities: only there to hold crewai.utilities.events
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(ours), is_package=True)
