"""``@org/name`` skill references (CrewAI's skill registry).

CrewAI downloads such skills from its hosted registry (CrewAI AMP) into a local cache.
crewgraph does not talk to the hosted registry; a reference resolves only to a skill already
in the local cache (``~/.crewgraph/skills/<org>/<name>/<version>/``, e.g. unpacked there by
:meth:`SkillCacheManager.store`), and otherwise is an error saying so.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

__all__ = ["SkillCacheManager", "SkillMetadata", "SkillRef", "is_registry_ref", "parse_registry_ref",
           "parse_skill_ref", "resolve_registry_ref"]


class SkillRef(NamedTuple):
    org: str
    name: str
    version: str | None = None

    def __str__(self) -> str:
        ref = f"@{self.org}/{self.name}"
        return f"{ref}@{self.version}" if self.version else ref


class SkillMetadata(BaseModel):
    org: str
    name: str
    version: str | None = None
    path: Path


def is_registry_ref(value: Any) -> bool:
    """Whether ``value`` is an ``@org/name`` reference."""
    return isinstance(value, str) and value.startswith("@")


def parse_skill_ref(ref: str) -> SkillRef:
    """``@org/name`` or ``@org/name@1.2.0`` (a leading ``v`` on the version is dropped)."""
    if not ref.startswith("@"):
        raise ValueError(f"Registry reference must start with '@', got: {ref!r}")
    body = ref[1:]
    version = None
    if "@" in body:
        body, version = body.split("@", 1)
        version = version[1:] if version.startswith("v") else version
        if not version:
            raise ValueError(f"Registry reference {ref!r} has an empty version")
    if body.count("/") != 1 or not all(body.split("/")):
        raise ValueError(f"Registry reference must be in '@org/name' form, got: {ref!r}")
    org, name = body.split("/")
    return SkillRef(org, name, version)


def parse_registry_ref(ref: str) -> tuple[str, str]:
    parsed = parse_skill_ref(ref)
    return parsed.org, parsed.name


class SkillCacheManager:
    """The local cache of registry skills: ``<cache_root>/<org>/<name>/<version>/``."""

    def __init__(self, cache_root: Path | None = None) -> None:
        self.cache_root = Path(cache_root) if cache_root is not None else Path.home() / ".crewgraph" / "skills"

    def _versions(self, org: str, name: str) -> list[Path]:
        base = self.cache_root / org / name
        return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []

    def get_cached_path(self, org: str, name: str, version: str | None = None) -> Path | None:
        """The cached skill directory (the newest version when none is given), or None."""
        if version is not None:
            path = self.cache_root / org / name / version
            return path if path.is_dir() else None
        versions = self._versions(org, name)
        return versions[-1] if versions else None

    def store(self, org: str, name: str, version: str | None, archive_bytes: bytes) -> Path:
        """Unpack a skill archive (zip or tar) into the cache; returns the skill's directory."""
        target = self.cache_root / org / name / (version or "latest")
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        data = io.BytesIO(archive_bytes)
        if zipfile.is_zipfile(data):
            with zipfile.ZipFile(data) as archive:
                for member in archive.namelist():
                    if Path(member).is_absolute() or ".." in Path(member).parts:
                        raise ValueError(f"skill archive member {member!r} would leave the cache")
                archive.extractall(target)
        else:
            data.seek(0)
            with tarfile.open(fileobj=data) as archive:
                archive.extractall(target, filter="data")
        (target / ".crewgraph-skill.json").write_text(json.dumps({"org": org, "name": name, "version": version}))
        return target

    def invalidate(self, org: str, name: str) -> bool:
        """Remove every cached version; whether there was one."""
        base = self.cache_root / org / name
        if not base.is_dir():
            return False
        shutil.rmtree(base)
        return True

    def list_cached(self) -> list[SkillMetadata]:
        out: list[SkillMetadata] = []
        if not self.cache_root.is_dir():
            return out
        for org in sorted(p for p in self.cache_root.iterdir() if p.is_dir()):
            for name in sorted(p for p in org.iterdir() if p.is_dir()):
                for version in self._versions(org.name, name.name):
                    out.append(SkillMetadata(org=org.name, name=name.name, version=version.name, path=version))
        return out


def resolve_registry_ref(ref: str, source: Any = None, *, activate: bool = True) -> Any:
    """The skill ``ref`` names, from the local cache (CrewAI's hosted registry is not used)."""
    from crewgraph.skills.loader import activate_skill
    from crewgraph.skills.parser import SKILL_FILENAME, load_skill_metadata

    parsed = parse_skill_ref(ref)
    path = SkillCacheManager().get_cached_path(parsed.org, parsed.name, parsed.version)
    if path is None:
        raise FileNotFoundError(
            f"skill {ref!r} is not in the local skill cache; crewgraph does not download from CrewAI's hosted "
            "skill registry (a CrewAI AMP feature): put the skill's folder on disk and pass its path"
        )
    skill_dir = path if (path / SKILL_FILENAME).is_file() else path / parsed.name
    skill = load_skill_metadata(skill_dir)
    return activate_skill(skill, source) if activate else skill
