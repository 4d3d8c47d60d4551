"""What ``Agent(skills=...)`` accepts, checked when the agent is built (the files are read at kickoff)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["check_skill_entries"]


def check_skill_entries(value: list[Any] | None) -> list[Any] | None:
    if value is None:
        return None
    from crewgraph.skills.models import Skill

    for entry in value:
        if not isinstance(entry, str | Path | Skill):
            raise ValueError(
                f"skills entries are skill folder paths, Skill objects or '@org/name' references, "
                f"not {type(entry).__name__}"
            )
    return list(value)
