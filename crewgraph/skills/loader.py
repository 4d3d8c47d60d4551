"""Finding and loading skills: ``discover_skills`` (metadata), ``activate_skill`` (the body),
``load_skill(s)`` (what ``Agent(skills=[...])`` accepts: skill directories, folders of
them, ``Skill`` objects), and the text a skill adds to an agent's task prompt."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.skill_events import (
    SkillActivatedEvent,
    SkillDiscoveryCompletedEvent,
    SkillDiscoveryStartedEvent,
    SkillLoadedEvent,
    SkillLoadFailedEvent,
)
from crewgraph.skills.models import DisclosureLevel, Skill
from crewgraph.skills.parser import (
    SKILL_FILENAME,
    SkillParseError,
    load_skill_instructions,
    load_skill_metadata,
    load_skill_resources,
)

__all__ = ["activate_skill", "discover_skills", "format_skill_context", "load_resources", "load_skill",
           "load_skills", "skills_prompt"]


def discover_skills(search_path: Path, source: Any = None) -> list[Skill]:
    """The skills in the subdirectories of ``search_path`` that hold a SKILL.md, at the
    metadata level. A skill that fails to load is skipped (with a ``SkillLoadFailedEvent``)."""
    search_path = Path(search_path)
    if not search_path.is_dir():
        raise FileNotFoundError(f"Skill search path does not exist or is not a directory: {search_path}")
    if source is not None:
        crewgraph_event_bus.emit(source, SkillDiscoveryStartedEvent(from_agent=source, search_path=search_path))
    found: list[Skill] = []
    for child in sorted(search_path.iterdir()):
        if not (child / SKILL_FILENAME).is_file():
            continue
        try:
            skill = load_skill_metadata(child)
        except (SkillParseError, OSError) as exc:
            if source is not None:
                crewgraph_event_bus.emit(source, SkillLoadFailedEvent(from_agent=source, skill_name=child.name,
                                                                      skill_path=child, error=str(exc)))
            continue
        found.append(skill)
        if source is not None:
            crewgraph_event_bus.emit(source, SkillLoadedEvent(from_agent=source, skill_name=skill.name,
                                                              skill_path=skill.path, disclosure_level=1))
    if source is not None:
        crewgraph_event_bus.emit(source, SkillDiscoveryCompletedEvent(
            from_agent=source, search_path=search_path, skills_found=len(found), skill_names=[s.name for s in found]))
    return found


def activate_skill(skill: Skill, source: Any = None) -> Skill:
    """``skill`` with its SKILL.md body loaded (unchanged if it already is)."""
    if skill.disclosure_level >= DisclosureLevel.INSTRUCTIONS:
        return skill
    active = load_skill_instructions(skill)
    if source is not None:
        crewgraph_event_bus.emit(source, SkillActivatedEvent(from_agent=source, skill_name=active.name,
                                                             skill_path=active.path, disclosure_level=2))
    return active


def load_resources(skill: Skill) -> Skill:
    """``skill`` with its scripts/, references/ and assets/ files listed."""
    return load_skill_resources(skill)


def load_skill(skill: Path | Skill | str, source: Any = None, *, activate: bool = True) -> list[Skill]:
    """One entry of ``Agent(skills=[...])``: a ``Skill``, a skill directory (holding SKILL.md),
    a folder of skill directories, or an ``@org/name`` registry reference."""
    if isinstance(skill, Skill):
        return [activate_skill(skill, source) if activate else skill]
    from crewgraph.skills.registry import is_registry_ref, resolve_registry_ref

    if is_registry_ref(skill):
        return [resolve_registry_ref(str(skill), source, activate=activate)]
    if not isinstance(skill, str | Path):
        raise TypeError(f"a skill is a path, a Skill or an '@org/name' reference, not {type(skill).__name__}")
    path = Path(skill).expanduser()
    if (path / SKILL_FILENAME).is_file():
        found = [load_skill_metadata(path)]
    elif path.is_dir():
        found = discover_skills(path, source)
    else:
        raise FileNotFoundError(f"skill path {str(skill)!r} is neither a skill directory nor a folder of skills")
    return [activate_skill(s, source) for s in found] if activate else found


def load_skills(skills: Iterable[Path | Skill | str], source: Any = None, *, activate: bool = True) -> list[Skill]:
    """Every entry loaded, duplicates by name dropped (the first one wins)."""
    seen: set[str] = set()
    loaded: list[Skill] = []
    for entry in skills:
        for skill in load_skill(entry, source, activate=activate):
            if skill.name not in seen:
                seen.add(skill.name)
                loaded.append(skill)
    return loaded


def format_skill_context(skill: Skill) -> str:
    """What one skill adds to a task prompt: its name and description, and once activated its
    instructions (and, at the resources level, its files)."""
    if skill.disclosure_level >= DisclosureLevel.INSTRUCTIONS and skill.instructions:
        parts = [f"## Skill: {skill.name}", skill.description, "", skill.instructions]
        if skill.disclosure_level >= DisclosureLevel.RESOURCES and skill.resource_files:
            parts += ["", "### Available Resources"]
            parts += [f"- **{d}/**: {', '.join(files)}" for d, files in sorted(skill.resource_files.items()) if files]
        return "\n".join(parts)
    return f"## Skill: {skill.name}\n{skill.description}"


def skills_prompt(skills: Iterable[Skill]) -> str:
    """The text the skills add to a task prompt ("" for none)."""
    return "\n\n".join(format_skill_context(s) for s in skills)
