"""FileWriterTool: write text to a file, creating directories, never clobbering by accident.

An existing file is only replaced when ``overwrite`` is true; with
``base_dir`` the file must land inside it.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crewgraph.toolkit._paths import confine, create_file, display
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["FileWriterTool", "FileWriterToolSchema"]


class FileWriterToolSchema(BaseModel):
    """Input for FileWriterTool. Unknown arguments are refused, as for ``@tool`` functions
    (a model's ``overwite: true`` must not silently mean "do not overwrite")."""

    model_config = ConfigDict(extra="forbid")

    filename: str = Field(..., description="Name (or relative path) of the file to write")
    content: str = Field(..., description="Text to write into the file")
    directory: str | None = Field(default=None, description="Directory to write in (default: current)")
    overwrite: str | bool = Field(default=False, description="Replace the file if it already exists")


def _truthy(value: bool | str) -> bool:
    """Direct callers ported from CrewAI pass ``overwrite="False"``; read it as they mean it."""
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "y", "on"}
    return bool(value)


class FileWriterTool(BaseTool):
    """Writes ``content`` to ``directory/filename`` as UTF-8."""

    name: str = "File Writer Tool"
    description: str = (
        "A tool to write content to a specified file. Accepts filename, content, and optionally "
        "a directory path and an overwrite flag as input."
    )
    args_schema: type[BaseModel] = FileWriterToolSchema
    base_dir: str | None = Field(default=None, description="Directory all files must stay inside")
    encoding: str = Field(default="utf-8", description="Text encoding of the files written (CrewAI's name)")

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str) -> str:
        try:
            codecs.lookup(value)
        except LookupError:
            raise ValueError(f"{cls.__name__}(encoding={value!r}): Python knows no such text encoding") from None
        return value

    def _run(
        self,
        filename: str,
        content: str,
        directory: str | None = None,
        overwrite: bool | str = False,
    ) -> str | ToolFailure:
        relative = Path(directory or ".") / filename
        path = confine(str(relative), self.base_dir)
        if isinstance(path, ToolFailure):
            return path
        shown = display(path, self.base_dir)
        fd = create_file(path, self.base_dir, shown, overwrite=_truthy(overwrite))
        if isinstance(fd, ToolFailure):
            return fd
        try:
            with os.fdopen(fd, "w", encoding=self.encoding) as stream:
                stream.write(content)
        except OSError as exc:
            return ToolFailure(message=f"Could not write {shown!r}: {exc.strerror or exc}", code="os_error")
        except UnicodeEncodeError as exc:
            return ToolFailure(message=f"Could not write {shown!r}: the content has characters {self.encoding} cannot "
                               f"encode ({exc.reason}: {exc.object[exc.start:exc.end]!r})", code="encoding_error")
        return f"Content successfully written to {shown}"
