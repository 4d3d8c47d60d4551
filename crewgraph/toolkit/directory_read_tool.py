"""DirectoryReadTool: list the files under a directory, recursively.

Given ``directory`` at construction the model is not asked for one; given
``base_dir`` the directory must lie inside it.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from crewgraph.toolkit._paths import confine, display, open_directory
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["DirectoryReadTool", "DirectoryReadToolSchema"]


class DirectoryReadToolSchema(BaseModel):
    """Input for DirectoryReadTool."""

    model_config = ConfigDict(extra="forbid")

    directory: str = Field(..., description="Directory whose files to list")


class DirectoryReadTool(BaseTool):
    """Lists every file below a directory (sorted, symlinked directories not followed),
    up to ``max_entries`` paths, so an agent can pick files to read next."""

    name: str = "List files in directory"
    description: str = (
        "A tool that can be used to recursively list a directory's content. Provide the "
        "'directory' parameter with the directory to list."
    )
    args_schema: type[BaseModel] = DirectoryReadToolSchema
    directory: str | None = Field(default=None, description="Fixed directory (set at construction)")
    base_dir: str | None = Field(default=None, description="Directory all paths must stay inside")
    max_entries: int = Field(default=1000, ge=1, description="Most paths listed")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.directory is not None:
            self.args_schema = narrow_schema(self.args_schema, {"directory"}, self.name)
            self.description = (
                f"A tool that can be used to recursively list the files in {self.directory!r}."
            )

    def _run(self, directory: str | None = None) -> str | ToolFailure:
        target = directory or self.directory
        if not target:
            return ToolFailure(message="No directory given: say which directory to list.", code="missing_path")
        root = confine(target, self.base_dir)
        if isinstance(root, ToolFailure):
            return root
        shown = display(root, self.base_dir)
        fd = open_directory(root, self.base_dir, shown)
        if isinstance(fd, ToolFailure):
            return fd
        try:
            files, truncated = self._list(fd, shown)
        finally:
            os.close(fd)
        if not files:
            return f"Directory {shown!r} contains no files."
        listing = "File paths: \n- " + "\n- ".join(files)
        if truncated:
            listing += f"\n[... listing stopped at {self.max_entries} files]"
        return listing

    def _list(self, fd: int, shown: str) -> tuple[list[str], bool]:
        """Walk the directory *descriptor* that was checked (not its path, which may have been
        swapped since); symlinked directories are not entered."""
        files: list[str] = []
        for current, dirs, names, _ in os.fwalk(".", dir_fd=fd):
            dirs.sort()
            rel_dir = os.path.relpath(current, ".")
            for name in sorted(names):
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                if len(files) >= self.max_entries:
                    return files, True
                files.append(f"{shown.rstrip('/')}/{rel.replace(os.sep, '/')}")
        return files, False
