"""FileReadTool: read a text file (or the text of a PDF or DOCX), optionally a line range.

Given ``file_path`` at construction the path is fixed and the model is no
longer asked for one; given ``base_dir`` every path must stay inside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from crewgraph.toolkit._paths import confine, display
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["FileReadTool", "FileReadToolSchema"]


class FileReadToolSchema(BaseModel):
    """Input for FileReadTool."""

    file_path: str = Field(..., description="Path of the file to read")
    start_line: int | None = Field(
        default=None, ge=1, description="First line to read (1-based); from the start when omitted"
    )
    line_count: int | None = Field(
        default=None, ge=1, description="How many lines to read; to the end when omitted"
    )


def _extract_pdf(path: Path) -> str:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages).strip()


def _extract_docx(path: Path) -> str:
    import docx

    document = docx.Document(str(path))
    return "\n".join(p.text for p in document.paragraphs)


_EXTRACTORS = {".pdf": _extract_pdf, ".docx": _extract_docx}


def _read_text(path: Path) -> str | ToolFailure:
    extractor = _EXTRACTORS.get(path.suffix.lower())
    if extractor is not None:
        try:
            return extractor(path)
        except Exception as exc:
            return ToolFailure(
                message=f"Could not extract text from {path.name!r}: {type(exc).__name__}: {exc}",
                code="unreadable_document",
            )
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        return ToolFailure(
            message=f"{path.name!r} is a binary file; this tool reads text, PDF and DOCX files.",
            code="binary_file",
        )
    return data.decode("utf-8", errors="replace")


class FileReadTool(BaseTool):
    """Reads a file's content. Text files are decoded as UTF-8; ``.pdf`` and ``.docx`` files
    are converted to text. Long content is cut at ``max_chars`` with a note saying how to
    read further (``start_line``/``line_count``)."""

    name: str = "Read a file's content"
    description: str = (
        "A tool that reads the content of a file. To use this tool, provide a 'file_path' "
        "parameter with the path to the file you want to read. Optionally give 'start_line' "
        "and 'line_count' to read part of a long file."
    )
    args_schema: type[BaseModel] = FileReadToolSchema
    file_path: str | None = Field(default=None, description="Fixed file to read (set at construction)")
    base_dir: str | None = Field(default=None, description="Directory all paths must stay inside")
    max_chars: int = Field(default=100_000, ge=1, description="Longest text handed back")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.file_path is not None:
            self.args_schema = narrow_schema(self.args_schema, {"file_path"}, self.name)
            self.description = (
                f"A tool that reads the content of {self.file_path!r}. Optionally give "
                "'start_line' and 'line_count' to read part of it."
            )

    def _run(
        self,
        file_path: str | None = None,
        start_line: int | None = None,
        line_count: int | None = None,
    ) -> str | ToolFailure:
        target = file_path or self.file_path
        if not target:
            return ToolFailure(message="No file_path given: say which file to read.", code="missing_path")
        path = confine(target, self.base_dir)
        if isinstance(path, ToolFailure):
            return path
        shown = display(path, self.base_dir)
        if not path.exists():
            return ToolFailure(message=f"File not found: {shown!r}", code="file_not_found")
        if path.is_dir():
            return ToolFailure(
                message=f"{shown!r} is a directory, not a file; list it with a directory tool.",
                code="is_a_directory",
            )
        try:
            text = _read_text(path)
        except OSError as exc:
            return ToolFailure(message=f"Could not read {shown!r}: {exc.strerror or exc}", code="os_error")
        if isinstance(text, ToolFailure):
            return text
        return self._window(text, start_line, line_count)

    def _window(self, text: str, start_line: int | None, line_count: int | None) -> str:
        if start_line is not None or line_count is not None:
            lines = text.splitlines(keepends=True)
            first = (start_line or 1) - 1
            last = len(lines) if line_count is None else first + line_count
            text = "".join(lines[first:last])
        if len(text) > self.max_chars:
            rest = len(text) - self.max_chars
            text = (
                text[: self.max_chars]
                + f"\n[... truncated: {rest} more characters; use start_line/line_count to read further]"
            )
        return text
