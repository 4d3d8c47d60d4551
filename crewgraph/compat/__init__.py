"""Run unmodified CrewAI code on crewgraph: ``import crewai`` and ``import crewai_tools`` resolve here.

Opt in with one line at the top of a script (before anything imports crewai)::

    import crewgraph.compat  # noqa: F401  (crewai -> crewgraph, crewai_tools -> crewgraph.toolkit)

or run the script as it is with ``python -m crewgraph.compat script.py [args]``.
``crewgraph run`` turns it on by itself for the projects it runs. Third-party
packages built on CrewAI see crewgraph's modules too, so they need no editing.

When the real ``crewai`` is installed the alias steps aside: an import of
``crewai`` gets CrewAI, and :func:`install` says so once (a
:class:`RealCrewAIWarning`). The paths come from one table,
``crewgraph._internal.crewai_paths``.
"""

from __future__ import annotations

import sys
import warnings

from crewgraph._internal.crewai_paths import PACKAGES
from crewgraph.compat._alias import AliasModule, CrewAIFinder, crewgraph_module_for, real_package

__all__ = ["RealCrewAIWarning", "crewgraph_module_for", "install", "installed", "is_alias", "uninstall"]


class RealCrewAIWarning(UserWarning):
    """The real ``crewai``/``crewai_tools`` is installed, so the alias leaves that package to it."""


_FINDER = CrewAIFinder()


def installed() -> bool:
    """Whether the alias is on ``sys.meta_path``."""
    return _FINDER in sys.meta_path


def install(*, warn: bool = True) -> list[str]:
    """Turn the alias on (idempotent); the CrewAI packages that are installed for real and so left
    alone (with a :class:`RealCrewAIWarning` for each unless ``warn=False``)."""
    real = [(top, where) for top in PACKAGES if (where := real_package(top)) is not None]
    if not installed():
        sys.meta_path.append(_FINDER)  # last: a real crewai on sys.path is always found first
        if warn:
            for top, where in real:
                warnings.warn(
                    f"the real {top} is installed ({where}): `import {top}` gets it, not crewgraph; "
                    f"uninstall it (pip uninstall {top.replace('_', '-')}) to run this code on crewgraph",
                    RealCrewAIWarning,
                    stacklevel=2,
                )
    return [top for top, _ in real]


def uninstall() -> None:
    """Turn the alias off and forget the alias modules imported so far."""
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n, m in sys.modules.items() if isinstance(m, AliasModule)]:
        del sys.modules[name]


def is_alias(module: object) -> bool:
    """Whether ``module`` is one of the alias's CrewAI modules (False for the real crewai)."""
    return isinstance(module, AliasModule)


install()
