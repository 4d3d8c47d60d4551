"""FileReadTool: read a text file (or the text of a PDF or DOCX), optionally a line range.

Given ``file_path`` at construction the path is fixed and the model is no
longer asked for one; given ``base_dir`` every path must stay inside it.
"""

from __future__ import annotations

import codecs
import io
import os
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crewgraph._internal.extras import import_extra
from crewgraph.toolkit._paths import confine, display, open_file
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["FileReadTool", "FileReadToolSchema"]


class FileReadToolSchema(BaseModel):
    """Input for FileReadTool."""

    model_config = ConfigDict(extra="forbid")

    file_path: str | None = Field(default=None, description="Path of the file to read")
    start_line: int | None = Field(
        default=None, ge=1, description="First line to read (1-based); from the start when omitted"
    )
    line_count: int | None = Field(
        default=None, ge=1, description="How many lines to read; to the end when omitted"
    )


def _extract_pdf(stream: BinaryIO) -> str:
    import pypdf  # in the core dependencies
    reader = pypdf.PdfReader(stream)
    return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages).strip()


def _extract_docx(stream: BinaryIO) -> str:
    docx = import_extra("docx", "tools", "Reading Word (.docx) files")
    document = docx.Document(stream)
    return "\n".join(p.text for p in document.paragraphs)


_EXTRACTORS = {".pdf": _extract_pdf, ".docx": _extract_docx}


def _extract(stream: BinaryIO, suffix: str, name: str, size: int, limit: int) -> str | ToolFailure:
    """Text of a PDF/DOCX (these formats need the whole file, so the file size is capped)."""
    if size > limit:
        return ToolFailure(
            message=f"{name!r} is {size} bytes; documents over {limit} bytes are not converted.",
            code="file_too_large",
        )
    try:
        return _EXTRACTORS[suffix](stream)
    except Exception as exc:
        return ToolFailure(
            message=f"Could not extract text from {name!r}: {type(exc).__name__}: {exc}",
            code="unreadable_document",
        )


def _wide(encoding: str) -> bool:
    """Whether text in ``encoding`` has NUL bytes of its own (UTF-16/32), so NULs do not mean binary."""
    return codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))


def _read_capped(stream: BinaryIO, size: int, max_chars: int, encoding: str = "utf-8") -> str:
    """At most ``max_chars`` characters from the start, reading at most what they need."""
    budget = max(max_chars * 4 + 4, 1 << 16)  # a character is at most 4 bytes (UTF-8, -16, -32)
    data = stream.read(budget)
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    text = decoder.decode(data, final=len(data) < budget)
    if len(text) <= max_chars and len(data) < budget:
        return text
    kept = text[:max_chars]
    if len(data) < budget:  # the whole file was read: the count is exact
        rest = f"{len(text) - max_chars} more characters"
    else:
        rest = f"{max(0, size - len(kept.encode(encoding, errors='replace')))} more bytes"
    return kept + f"\n[... truncated: {rest}; use start_line/line_count to read further]"


def _read_window(stream: BinaryIO, start_line: int, line_count: int | None, max_chars: int,
                 encoding: str = "utf-8") -> str:
    """Lines ``start_line``.. (1-based), at most ``line_count`` of them and ``max_chars``
    characters; earlier lines are read in chunks and dropped, never held whole."""
    text_stream = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline="")
    line = 1
    while line < start_line:
        chunk = text_stream.readline(65536)
        if not chunk:
            return ""
        if chunk.endswith(("\n", "\r")):
            line += 1
    parts: list[str] = []
    used = 0
    taken = 0
    while line_count is None or taken < line_count:
        chunk = text_stream.readline(max_chars + 1 - used)
        if not chunk:
            break
        parts.append(chunk)
        used += len(chunk)
        if chunk.endswith(("\n", "\r")):
            taken += 1
        if used > max_chars:
            text = "".join(parts)[:max_chars]
            return text + (
                f"\n[... truncated at {max_chars} characters; use start_line/line_count to read further]"
            )
    text_stream.detach()
    return "".join(parts)


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
    encoding: str = Field(default="utf-8", description="Text encoding of the files read (CrewAI's name)")

    @field_validator("encoding")
    @classmethod
    def _known_encoding(cls, value: str) -> str:
        try:
            codecs.lookup(value)
        except LookupError:
            raise ValueError(f"{cls.__name__}(encoding={value!r}): Python knows no such text encoding") from None
        return value
    max_chars: int = Field(default=100_000, ge=1, description="Longest text handed back")
    max_document_bytes: int = Field(
        default=50 * 1024 * 1024, ge=1, description="Largest PDF/DOCX converted (they are read whole)"
    )

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
        fd = open_file(path, self.base_dir, shown)
        if isinstance(fd, ToolFailure):
            return fd
        try:
            with os.fdopen(fd, "rb") as stream:
                return self._read(stream, path.suffix.lower(), shown, start_line, line_count)
        except OSError as exc:
            return ToolFailure(message=f"Could not read {shown!r}: {exc.strerror or exc}", code="os_error")

    def _read(
        self, stream: BinaryIO, suffix: str, shown: str, start_line: int | None, line_count: int | None
    ) -> str | ToolFailure:
        size = os.fstat(stream.fileno()).st_size
        if suffix in _EXTRACTORS:
            text = _extract(stream, suffix, shown, size, self.max_document_bytes)
            return text if isinstance(text, ToolFailure) else self._window(text, start_line, line_count)
        if not _wide(self.encoding) and b"\x00" in stream.read(8192):
            return ToolFailure(
                message=f"{shown!r} is a binary file; this tool reads text, PDF and DOCX files.",
                code="binary_file",
            )
        stream.seek(0)
        if start_line is None and line_count is None:
            return _read_capped(stream, size, self.max_chars, self.encoding)
        return _read_window(stream, start_line or 1, line_count, self.max_chars, self.encoding)

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
