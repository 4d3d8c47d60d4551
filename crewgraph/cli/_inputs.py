"""``--inputs key=value`` (repeatable) into the dict a kickoff takes."""

from __future__ import annotations

from typing import Any

from crewgraph.cli._errors import UsageProblem

__all__ = ["parse_inputs"]


def parse_inputs(items: list[str] | None, defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """Merge ``defaults`` (from ``[tool.crewgraph] inputs``) with ``key=value`` items.

    Values stay strings, as a kickoff's placeholders expect; the value may
    itself contain ``=``. A key given twice is an error, not a silent override.
    """
    inputs: dict[str, Any] = dict(defaults or {})
    given: set[str] = set()
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageProblem(f"bad --inputs {item!r}: expected key=value, e.g. --inputs topic=AI")
        if key in given:
            raise UsageProblem(f"--inputs {key!r} given twice")
        given.add(key)
        inputs[key] = value
    return inputs
