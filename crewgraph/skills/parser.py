"""Reading SKILL.md: YAML frontmatter between ``---`` lines, then the markdown body."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from crewgraph.skills.models import DisclosureLevel, ResourceDirName, Skill, SkillFrontmatter

__all__ = ["SKILL_FILENAME", "SkillParseError", "load_skill_instructions", "load_skill_metadata",
           "load_skill_resources", "parse_frontmatter", "parse_skill_md"]

SKILL_FILENAME = "SKILL.md"
_CLOSING = re.compile(r"\n---[ \t]*(?:\n|$)")


class SkillParseError(ValueError):
    """A SKILL.md that cannot be read as a skill (says which file and why)."""


def parse_frontmatter(content: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of a SKILL.md's text."""
    import yaml

    if not content.startswith("---"):
        raise SkillParseError("SKILL.md must start with a '---' frontmatter line")
    end = _CLOSING.search(content, pos=3)
    if end is None:
        raise SkillParseError("SKILL.md has no closing '---' line after its frontmatter")
    try:
        data = yaml.safe_load(content[3:end.start()].strip())
    except yaml.YAMLError as exc:
        raise SkillParseError(f"invalid YAML in the frontmatter: {exc}") from exc
    if not isinstance(data, dict):
        raise SkillParseError("the frontmatter must be a YAML mapping (name: ..., description: ...)")
    return data, content[end.end():].strip()


def parse_skill_md(path: Path) -> tuple[SkillFrontmatter, str]:
    from pydantic import ValidationError

    try:
        data, body = parse_frontmatter(path.read_text(encoding="utf-8"))
        return SkillFrontmatter(**data), body
    except SkillParseError as exc:
        raise SkillParseError(f"{path}: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise SkillParseError(f"{path}: {problems}") from None


def load_skill_metadata(skill_dir: Path) -> Skill:
    """The skill in ``skill_dir`` at the metadata level (its directory name must be its name)."""
    frontmatter, _ = parse_skill_md(skill_dir / SKILL_FILENAME)
    if skill_dir.name != frontmatter.name:
        raise SkillParseError(
            f"{skill_dir / SKILL_FILENAME}: the skill is named {frontmatter.name!r} but its directory is "
            f"{skill_dir.name!r}; they must match"
        )
    return Skill(frontmatter=frontmatter, path=skill_dir, disclosure_level=1)


def load_skill_instructions(skill: Skill) -> Skill:
    if skill.disclosure_level >= DisclosureLevel.INSTRUCTIONS:
        return skill
    _, body = parse_skill_md(skill.path / SKILL_FILENAME)
    return skill.with_disclosure_level(DisclosureLevel.INSTRUCTIONS, instructions=body)


def load_skill_resources(skill: Skill) -> Skill:
    if skill.disclosure_level >= DisclosureLevel.RESOURCES:
        return skill
    skill = load_skill_instructions(skill)
    dirs: list[tuple[ResourceDirName, Path]] = [
        ("scripts", skill.scripts_dir), ("references", skill.references_dir), ("assets", skill.assets_dir)]
    files: dict[ResourceDirName, list[str]] = {
        name: sorted(str(f.relative_to(d)) for f in d.rglob("*") if f.is_file()) for name, d in dirs if d.is_dir()
    }
    return skill.with_disclosure_level(DisclosureLevel.RESOURCES, resource_files=files)
