"""Agent Skills (CrewAI's ``crewai.skills``): folders with a SKILL.md whose instructions go
into an agent's task prompts (``Agent(skills=["./skills"])``). See docs/skills.md."""

from crewgraph.skills.loader import (
    activate_skill,
    discover_skills,
    format_skill_context,
    load_resources,
    load_skill,
    load_skills,
)
from crewgraph.skills.models import DisclosureLevel, Skill, SkillFrontmatter
from crewgraph.skills.parser import SkillParseError
from crewgraph.skills.registry import (
    SkillCacheManager,
    SkillRef,
    is_registry_ref,
    parse_registry_ref,
    parse_skill_ref,
    resolve_registry_ref,
)

__all__ = [
    "DisclosureLevel",
    "Skill",
    "SkillCacheManager",
    "SkillFrontmatter",
    "SkillParseError",
    "SkillRef",
    "activate_skill",
    "discover_skills",
    "format_skill_context",
    "is_registry_ref",
    "load_resources",
    "load_skill",
    "load_skills",
    "parse_registry_ref",
    "parse_skill_ref",
    "resolve_registry_ref",
]
