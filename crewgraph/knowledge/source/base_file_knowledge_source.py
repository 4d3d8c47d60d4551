"""``BaseFileKnowledgeSource``: knowledge read from files, found as CrewAI finds them.

A string path is relative to the ``knowledge/`` directory of the working
directory (``file_paths=["handbook.pdf"]`` reads ``./knowledge/handbook.pdf``),
as in CrewAI; a ``Path`` object or an absolute string is used as it is. A
missing file is a ``FileNotFoundError`` when the source is built, naming the
path looked at. Files are read each time the knowledge is indexed, so an
edited file is re-indexed (and only then).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from crewgraph.knowledge.source.base_knowledge_source import BaseKnowledgeSource

__all__ = ["KNOWLEDGE_DIRECTORY", "BaseFileKnowledgeSource"]

KNOWLEDGE_DIRECTORY = "knowledge"
"""Where string file paths are looked up (relative to the working directory), as in CrewAI."""


class BaseFileKnowledgeSource(BaseKnowledgeSource):
    """A source over ``file_paths``; subclasses turn one file into text (:meth:`read_file`)."""

    file_paths: Path | str | list[Path | str] | None = Field(default_factory=list)
    file_path: Path | str | list[Path | str] | None = Field(
        default=None, description="Deprecated in CrewAI: use file_paths"
    )
    safe_file_paths: list[Path] = Field(default_factory=list, description="The resolved paths (set on construction)")
    content: dict[Path, str] = Field(default_factory=dict, description="Each file's text, as last read")

    def model_post_init(self, __context: Any) -> None:
        given = self.file_paths if self.file_paths else self.file_path
        if given is None or given == []:
            raise ValueError(f"{type(self).__name__} needs file_paths=[...] (files under ./{KNOWLEDGE_DIRECTORY}/)")
        items = [given] if isinstance(given, str | Path) else list(given)
        self.safe_file_paths = [self.convert_to_path(p) for p in items]
        self.validate_content()

    @property
    def _paths(self) -> list[Path]:
        return self.safe_file_paths

    @staticmethod
    def convert_to_path(path: Path | str) -> Path:
        if isinstance(path, Path):
            return path
        text = str(path)
        return Path(text) if Path(text).is_absolute() else Path(KNOWLEDGE_DIRECTORY) / text

    def validate_content(self) -> None:
        for path in self._paths:
            if not path.exists():
                raise FileNotFoundError(
                    f"{type(self).__name__}: file not found: {path} (string paths are relative to "
                    f"./{KNOWLEDGE_DIRECTORY}/ in the working directory {Path.cwd()})"
                )
            if not path.is_file():
                raise FileNotFoundError(f"{type(self).__name__}: not a file: {path}")

    def read_file(self, path: Path) -> str:
        """The text of one file (plain UTF-8 by default)."""
        return path.read_text(encoding="utf-8", errors="replace")

    def load_content(self) -> dict[Any, str]:
        out: dict[Any, str] = {}
        for path in self._paths:
            try:
                out[path] = self.read_file(path)
            except FileNotFoundError:
                raise
            except Exception as exc:
                raise ValueError(f"{type(self).__name__}: cannot read {path}: {type(exc).__name__}: {exc}") from exc
        self.content = dict(out)
        return out

    def describe(self) -> str:
        names = ", ".join(str(p) for p in self._paths[:3])
        return f"{type(self).__name__}({names}{', ...' if len(self._paths) > 3 else ''})"
