"""Optional dependencies: import one, or say which crewgraph extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from crewgraph.errors import MissingExtraError

__all__ = ["import_extra", "missing_extra"]


def import_extra(module: str, extra: str, feature: str) -> ModuleType:
    """``importlib.import_module(module)``, or a :class:`MissingExtraError` naming ``extra``.

    ``feature`` says what needs it, in words a user recognises ("reading PDF files").
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name != module and not module.startswith(exc.name + "."):
            raise  # the module is there but one of its own imports failed: show that error
        raise MissingExtraError(
            f"{feature} needs the optional package {module.split('.')[0]!r}: "
            f"pip install 'crewgraph[{extra}]'",
            extra=extra,
            module=module,
        ) from exc


def missing_extra(module: str, extra: str, feature: str) -> str | None:
    """What :func:`import_extra` would say if ``module`` is not installed, found without importing
    it (None when it is there): so a crew can be refused before its run, not on every call."""
    import importlib.util

    top = module.split(".")[0]
    try:
        found = importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return None
    return f"{feature} needs the optional package {top!r}: pip install 'crewgraph[{extra}]'"
