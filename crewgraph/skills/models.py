"""The Agent Skills data model (CrewAI's ``crewai.skills`` models): a skill's SKILL.md
frontmatter and the skill at a disclosure level (metadata, instructions, resources)."""

from __future__ import annotations

import re
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["MAX_DESCRIPTION_LENGTH", "SKILL_NAME_PATTERN", "DisclosureLevel", "ResourceDirName", "Skill",
           "SkillFrontmatter"]

MAX_DESCRIPTION_LENGTH = 1024
SKILL_NAME_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
ResourceDirName = Literal["scripts", "references", "assets"]


class DisclosureLevel(IntEnum):
    """How much of a skill is loaded: frontmatter only, the SKILL.md body, or also its resource files."""

    METADATA = 1
    INSTRUCTIONS = 2
    RESOURCES = 3


class SkillFrontmatter(BaseModel):
    """The YAML frontmatter of a SKILL.md."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    name: str = Field(min_length=1, max_length=64, pattern=SKILL_NAME_PATTERN)
    description: str = Field(min_length=1, max_length=MAX_DESCRIPTION_LENGTH)
    license: str | None = None
    compatibility: str | None = Field(default=None, max_length=500)
    metadata: dict[str, str] | None = None
    allowed_tools: list[str] | None = Field(default=None, alias="allowed-tools")

    @model_validator(mode="before")
    @classmethod
    def parse_allowed_tools(cls, values: dict[str, Any]) -> dict[str, Any]:
        """``allowed-tools`` is written space-delimited in SKILL.md."""
        if isinstance(values, dict):
            raw = values.get("allowed-tools", values.get("allowed_tools"))
            if isinstance(raw, str):
                values = {k: v for k, v in values.items() if k != "allowed_tools"}
                values["allowed-tools"] = raw.split()
        return values


class Skill(BaseModel):
    """A skill directory loaded up to ``disclosure_level``."""

    frontmatter: SkillFrontmatter
    instructions: str | None = None
    path: Path
    disclosure_level: Literal[1, 2, 3] = 1
    resource_files: dict[ResourceDirName, list[str]] | None = None

    @property
    def name(self) -> str:
        return self.frontmatter.name

    @property
    def description(self) -> str:
        return self.frontmatter.description

    @property
    def scripts_dir(self) -> Path:
        return self.path / "scripts"

    @property
    def references_dir(self) -> Path:
        return self.path / "references"

    @property
    def assets_dir(self) -> Path:
        return self.path / "assets"

    def with_disclosure_level(
        self, level: DisclosureLevel | int, instructions: str | None = None,
        resource_files: dict[ResourceDirName, list[str]] | None = None,
    ) -> Skill:
        """A copy at another disclosure level (given parts replace the current ones)."""
        return Skill(
            frontmatter=self.frontmatter,
            instructions=instructions if instructions is not None else self.instructions,
            path=self.path,
            disclosure_level=int(level),
            resource_files=resource_files if resource_files is not None else self.resource_files,
        )


def valid_name(name: str) -> bool:
    return bool(re.fullmatch(SKILL_NAME_PATTERN, name)) and len(name) <= 64
