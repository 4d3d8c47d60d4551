"""Files given to a task (``Task.input_files``): what kind each is and how a model receives it.

CrewAI sends a task's files to the model with its prompt. Over the OpenAI
chat API that means content parts: an image as an ``image_url`` part (a
``data:`` URL, or the URL itself for a web image), a PDF as a ``file`` part,
WAV/MP3 audio as an ``input_audio`` part. Only agents marked ``multimodal``
send those; a text file (code, CSV, JSON, Markdown, logs...) is read into the
prompt as text, which every model accepts. Anything else (video, unknown
binaries) is refused with an error naming the file, never dropped.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Literal

__all__ = ["MAX_FILE_BYTES", "FileKind", "content_parts", "file_kind", "file_problem", "source_of"]

FileKind = Literal["image", "pdf", "audio", "text"]

MAX_FILE_BYTES = 20 * 1024 * 1024
"""Largest file sent inline (OpenAI's limit for an image)."""

_IMAGE = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
_AUDIO = {".wav": "wav", ".mp3": "mp3"}
_TEXT = {
    ".txt", ".md", ".markdown", ".rst", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini",
    ".cfg", ".xml", ".html", ".htm", ".log", ".py", ".js", ".ts", ".java", ".c", ".h", ".cpp", ".go", ".rs",
    ".rb", ".sh", ".sql", ".css",
}


def source_of(value: Any) -> str:
    """A file given as a path, a URL, or an object with a ``source``/``path`` (as crewai_files'
    ``ImageFile(source=...)``), as one string."""
    for attr in ("source", "path"):
        inner = getattr(value, attr, None)
        if isinstance(inner, str | Path):
            return str(inner)
    if isinstance(value, str | Path):
        return str(value)
    raise ValueError(f"a file must be a path or a URL, got {type(value).__name__}")


def _is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def file_kind(source: str) -> FileKind:
    """What a file is, from its suffix (a file with an unknown suffix is text if it is UTF-8)."""
    suffix = Path(source.split("?", 1)[0]).suffix.lower()
    if suffix in _IMAGE:
        return "image"
    if suffix == ".pdf":
        return "pdf"
    if suffix in _AUDIO:
        return "audio"
    if suffix in _TEXT or (not _is_url(source) and _utf8(Path(source))):
        return "text"
    raise ValueError(
        f"{source!r} is not a file crewgraph can send to a model: images (png, jpg, gif, webp), "
        "PDF, WAV/MP3 audio and text files are supported"
    )


def _utf8(path: Path) -> bool:
    try:
        head = path.read_bytes()[:8192]
    except OSError:
        return False
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start > len(head) - 4  # a character cut at the end of the sample
    return True


def file_problem(name: str, value: Any, *, multimodal: bool) -> str | None:
    """Why file ``name`` cannot be sent (missing, too big, wrong kind for the agent), or None."""
    try:
        source = source_of(value)
    except ValueError as exc:
        return f"input file {name!r}: {exc}"
    if _is_url(source):
        kind = _safe_kind(source)
        if kind != "image":
            return f"input file {name!r}: only images may be given as URLs ({source!r}); give a local path"
    else:
        path = Path(source)
        if not path.is_file():
            return f"input file {name!r}: {source!r} does not exist or is not a file"
        if path.stat().st_size > MAX_FILE_BYTES:
            return f"input file {name!r}: {source!r} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
        kind = _safe_kind(source)
    if kind is None:
        return f"input file {name!r}: {file_kind_error(source)}"
    if kind != "text" and not multimodal:
        return (
            f"input file {name!r} ({source!r}) is {'an' if kind in ('image', 'audio') else 'a'} {kind}, and the "
            "agent is not multimodal: set multimodal=True on an agent whose model accepts it"
        )
    return None


def _safe_kind(source: str) -> FileKind | None:
    try:
        return file_kind(source)
    except ValueError:
        return None


def file_kind_error(source: str) -> str:
    try:
        file_kind(source)
    except ValueError as exc:
        return str(exc)
    return ""


def content_parts(files: list[tuple[str, str]]) -> tuple[str, list[dict[str, Any]]]:
    """The text to add to the prompt (text files, and a line naming each attachment) and the
    content parts of the binary files, in the order given."""
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    for name, source in files:
        kind = file_kind(source)
        label = Path(source.split("?", 1)[0]).name
        if kind == "text":
            body = Path(source).read_text(encoding="utf-8", errors="replace")
            texts.append(f"File {name!r} ({label}):\n{body}")
            continue
        texts.append(f"File {name!r} ({label}) is attached to this message.")
        if kind == "image":
            url = source if _is_url(source) else _data_url(source, _IMAGE[Path(source).suffix.lower()])
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif kind == "pdf":
            parts.append(
                {"type": "file", "file": {"filename": label, "file_data": _data_url(source, "application/pdf")}}
            )
        else:
            data = base64.b64encode(Path(source).read_bytes()).decode("ascii")
            parts.append({"type": "input_audio", "input_audio": {"data": data, "format": _AUDIO[Path(source).suffix.lower()]}})
    return "\n\n".join(texts), parts


def _data_url(source: str, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(Path(source).read_bytes()).decode("ascii")
