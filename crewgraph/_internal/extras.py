"""Optional dependencies: import one, or say which crewgraph extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from crewgraph.errors import MissingExtraError

__all__ = ["import_extra"]


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
