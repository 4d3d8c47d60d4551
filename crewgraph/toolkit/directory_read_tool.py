"""DirectoryReadTool: list the files under a directory, recursively.

Given ``directory`` at construction the model is not asked for one; given
``base_dir`` the directory must lie inside it.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, Field

from crewgraph.toolkit._paths import confine, display
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["DirectoryReadTool", "DirectoryReadToolSchema"]


class DirectoryReadToolSchema(BaseModel):
    """Input for DirectoryReadTool."""

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
        if not root.exists():
            return ToolFailure(message=f"Directory not found: {shown!r}", code="directory_not_found")
        if not root.is_dir():
            return ToolFailure(message=f"{shown!r} is a file, not a directory.", code="not_a_directory")
        files: list[str] = []
        truncated = False
        for current, dirs, names in os.walk(root):
            dirs.sort()
            rel_dir = os.path.relpath(current, root)
            for name in sorted(names):
                rel = name if rel_dir == "." else f"{rel_dir}/{name}"
                if len(files) >= self.max_entries:
                    truncated = True
                    break
                files.append(f"{shown.rstrip('/')}/{rel.replace(os.sep, '/')}")
            if truncated:
                break
        if not files:
            return f"Directory {shown!r} contains no files."
        listing = "File paths: \n- " + "\n- ".join(files)
        if truncated:
            listing += f"\n[... listing stopped at {self.max_entries} files]"
        return listing
