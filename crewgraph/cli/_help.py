"""Help output: flags show no value type.

typer (0.29) prints the type of every option in ``--help``, so a flag reads
``--quiet -q <bool>`` as if it took a value. A flag takes none: the type column stays
empty for flags (``--json``, ``--yes``, ``--checkpoint/--no-checkpoint``, ``--help``...),
and options that take a value keep theirs.
"""

from __future__ import annotations

from typing import Any

__all__ = ["hide_flag_types"]

_DONE = False


def hide_flag_types() -> None:
    """Make typer's rich help leave the type column empty for flags (idempotent)."""
    global _DONE
    if _DONE:
        return
    from typer.core import TyperOption

    original = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) and self.metavar is None:
            return None
        result: str | None = original(self, ctx)
        return result

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
    _DONE = True
