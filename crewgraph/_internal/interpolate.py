"""``{placeholder}`` interpolation that leaves unknown names and JSON braces alone."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["interpolate", "missing_placeholders", "placeholder_names"]

_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_\-]*)\}(?!\})")


def interpolate(text: str, inputs: dict[str, Any]) -> str:
    """Replace ``{name}`` with ``inputs[name]``; unknown names and ``{{`` stay as written."""
    if not inputs or "{" not in text:
        return text

    def sub(m: re.Match[str]) -> str:
        key = m.group(1)
        return str(inputs[key]) if key in inputs else m.group(0)

    return _PLACEHOLDER.sub(sub, text)


def missing_placeholders(text: str, inputs: dict[str, Any]) -> list[str]:
    if "{" not in text:  # most texts: no regex scan (asked six times per task at each kickoff)
        return []
    return sorted({k for k in _PLACEHOLDER.findall(text) if k not in inputs})


def placeholder_names(text: str) -> set[str]:
    """The ``{names}`` a text expects from kickoff inputs."""
    return set(_PLACEHOLDER.findall(text)) if "{" in text else set()
