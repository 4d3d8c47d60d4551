"""Events of loading Agent Skills (CrewAI's names and fields)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = ["SkillActivatedEvent", "SkillDiscoveryCompletedEvent", "SkillDiscoveryStartedEvent", "SkillEvent",
           "SkillLoadFailedEvent", "SkillLoadedEvent", "SkillUsedEvent"]


class SkillEvent(BaseEvent):
    type: str = "skill"
    skill_name: str = ""
    skill_path: Path | None = None
    from_agent: Any = None
    from_task: Any = None


class SkillDiscoveryStartedEvent(SkillEvent):
    type: str = "skill_discovery_started"
    search_path: Path


class SkillDiscoveryCompletedEvent(SkillEvent):
    type: str = "skill_discovery_completed"
    search_path: Path
    skills_found: int
    skill_names: list[str]


class SkillLoadedEvent(SkillEvent):
    type: str = "skill_loaded"
    disclosure_level: int = 1


class SkillActivatedEvent(SkillEvent):
    type: str = "skill_activated"
    disclosure_level: int = 2


class SkillLoadFailedEvent(SkillEvent):
    type: str = "skill_load_failed"
    error: str


class SkillUsedEvent(SkillEvent):
    type: str = "skill_used"
    disclosure_level: int = 1
