"""FileCompressorTool: pack a file or a directory into a zip or tar archive (CrewAI's arguments).

The archive goes to ``output_path`` (its extension must match ``format``) or,
by default, ``<name>.<format>`` in the current directory (``base_dir`` when
set). With ``base_dir`` both the input and the archive must stay inside it,
and files of a directory whose real path leaves it (a symlink to
``~/.ssh``...) are left out and counted in the answer, as CrewAI does; tar
archives never store links.
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._paths import confine, display
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["FileCompressorTool", "FileCompressorToolInput"]

_EXTENSIONS = {"zip": ".zip", "tar": ".tar", "tar.gz": ".tar.gz", "tar.bz2": ".tar.bz2", "tar.xz": ".tar.xz"}
_TAR_MODES: dict[str, Literal["w", "w:gz", "w:bz2", "w:xz"]] = {
    "tar": "w", "tar.gz": "w:gz", "tar.bz2": "w:bz2", "tar.xz": "w:xz"}


class FileCompressorToolInput(BaseModel):
    """Input for FileCompressorTool."""

    input_path: str = Field(..., description="Path to the file or directory to compress.")
    output_path: str | None = Field(default=None, description="Optional output archive filename.")
    overwrite: bool = Field(default=False, description="Whether to overwrite the archive if it already exists.")
    format: str = Field(default="zip", description="Compression format ('zip', 'tar', 'tar.gz', 'tar.bz2', 'tar.xz').")


def _inside(path: Path, base: Path | None) -> bool:
    return base is None or path.resolve().is_relative_to(base)


class FileCompressorTool(BaseTool):
    """Compresses ``input_path`` into one archive; the answer names the archive."""

    name: str = "File Compressor Tool"
    description: str = (
        "Compresses a file or directory into an archive (zip, tar, tar.gz, tar.bz2 or tar.xz). "
        "Useful for archiving logs, documents, or backups."
    )
    args_schema: type[BaseModel] = FileCompressorToolInput
    base_dir: str | None = Field(default=None, description="Directory the input and the archive must stay inside")

    def _run(
        self, input_path: str, output_path: str | None = None, overwrite: bool = False, format: str = "zip"
    ) -> str | ToolFailure:
        if format not in _EXTENSIONS:
            return ToolFailure(message=f"Compression format {format!r} is not supported. Allowed formats: "
                               + ", ".join(_EXTENSIONS), code="unsupported_format")
        source = confine(input_path, self.base_dir)
        if isinstance(source, ToolFailure):
            return source
        if not source.exists():
            return ToolFailure(message=f"Input path {display(source, self.base_dir)!r} does not exist.", code="file_not_found")
        if not output_path:
            stem = source.stem if source.is_file() else source.name
            output_path = str(Path(self.base_dir or os.getcwd()) / f"{stem}{_EXTENSIONS[format]}")
        target = confine(output_path, self.base_dir)
        if isinstance(target, ToolFailure):
            return target
        shown = display(target, self.base_dir)
        if not target.name.endswith(_EXTENSIONS[format]):
            return ToolFailure(message=f"The {format!r} format needs an output file ending in "
                               f"{_EXTENSIONS[format]!r}, not {shown!r}.", code="wrong_extension")
        if target.exists() and not overwrite:
            return ToolFailure(message=f"Output {shown!r} already exists and overwrite is False.", code="file_exists")
        if source.is_dir() and target.resolve().is_relative_to(source.resolve()):
            return ToolFailure(message=f"The archive {shown!r} cannot be written inside the directory it packs.",
                               code="archive_inside_input")
        base = Path(self.base_dir).resolve() if self.base_dir else None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            skipped = self._zip(source, target, base) if format == "zip" else self._tar(source, target, _TAR_MODES[format], base)
        except OSError as exc:
            return ToolFailure(message=f"Could not compress {display(source, self.base_dir)!r} into {shown!r}: {exc}",
                               code="compression_failed")
        message = f"Successfully compressed {display(source, self.base_dir)!r} into {shown!r}"
        if skipped:
            message += f" ({len(skipped)} item(s) skipped for safety: links, or resolved outside the allowed directory)"
        return message

    @staticmethod
    def _zip(source: Path, target: Path, base: Path | None) -> list[str]:
        skipped: list[str] = []
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            if source.is_file():
                archive.write(source, source.name)
                return skipped
            for root, dirs, files in os.walk(source):
                dirs.sort()
                for name in sorted(files):
                    path = Path(root) / name
                    if not _inside(path, base) or not path.resolve().is_file():
                        skipped.append(str(path))
                        continue
                    archive.write(path, str(path.relative_to(source)))
        return skipped

    @staticmethod
    def _tar(source: Path, target: Path, mode: Literal["w", "w:gz", "w:bz2", "w:xz"], base: Path | None) -> list[str]:
        skipped: list[str] = []

        def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
            if info.issym() or info.islnk():
                skipped.append(info.name)
                return None
            return info

        with tarfile.open(target, mode) as archive:
            archive.add(source, arcname=source.name, filter=keep)
        return skipped
