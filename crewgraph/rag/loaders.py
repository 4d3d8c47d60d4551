"""Turn local files into text chunks for retrieval.

Each loader gives plain text (PDF via pypdf, DOCX via python-docx, XML via the
stdlib parser, JSON pretty-printed, CSV as header-repeated row groups) and
:func:`chunk_text` cuts it into overlapping pieces at paragraph or sentence
boundaries, so a hit is a readable passage, not half a word.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

from crewgraph._internal.extras import import_extra

__all__ = ["TEXT_SUFFIXES", "chunk_text", "file_chunks", "load_text"]

TEXT_SUFFIXES = frozenset(
    {".txt", ".md", ".mdx", ".rst", ".csv", ".tsv", ".json", ".jsonl", ".xml", ".html", ".htm", ".yaml",
     ".yml", ".toml", ".ini", ".cfg", ".py", ".js", ".ts", ".java", ".go", ".rs", ".c", ".h", ".cpp",
     ".sql", ".sh", ".log", ".pdf", ".docx"}
)
"""What DirectorySearchTool indexes (other files are skipped)."""


def _pdf(path: Path) -> str:
    import pypdf  # in the core dependencies
    reader = pypdf.PdfReader(str(path))
    return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)


def _docx(path: Path) -> str:
    docx = import_extra("docx", "tools", "Reading Word (.docx) files")
    document = docx.Document(str(path))
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def _xml(path: Path) -> str:
    import xml.etree.ElementTree as ET

    root = ET.parse(str(path)).getroot()
    lines: list[str] = []
    for element in root.iter():
        text = (element.text or "").strip()
        attrs = " ".join(f'{k}="{v}"' for k, v in element.attrib.items())
        if text or attrs:
            tag = element.tag.split("}")[-1]
            lines.append(f"{tag}{(' ' + attrs) if attrs else ''}: {text}".rstrip(": "))
    return "\n".join(lines)


def _json(path: Path) -> str:
    raw = path.read_text("utf-8", errors="replace")
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except json.JSONDecodeError:
        return raw  # JSON Lines or broken JSON: index the text as it is


def _text(path: Path) -> str:
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise ValueError(f"{path.name!r} looks binary; only text, PDF and DOCX files can be searched")
    return data.decode("utf-8", errors="replace")


_LOADERS: dict[str, Callable[[Path], str]] = {".pdf": _pdf, ".docx": _docx, ".xml": _xml, ".json": _json}


def load_text(path: Path) -> str:
    """The searchable text of ``path`` (by suffix; plain UTF-8 otherwise)."""
    return _LOADERS.get(path.suffix.lower(), _text)(path)


def _csv_chunks(text: str, rows_per_chunk: int = 20) -> list[str]:
    first = text.splitlines()[0] if text else ""
    dialect = "excel-tab" if "\t" in first else "excel"
    rows = list(csv.reader(io.StringIO(text), dialect=dialect))
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    chunks = []
    for start in range(0, max(len(body), 1), rows_per_chunk):
        group = body[start : start + rows_per_chunk]
        lines = [", ".join(f"{h}: {v}" for h, v in zip(header, row, strict=False)) for row in group]
        chunks.append("\n".join(lines) if lines else ", ".join(header))
    return chunks


_BREAKS = [re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"), re.compile(r"\s+")]


def chunk_text(text: str, size: int = 1000, overlap: int = 200) -> list[str]:
    """Pieces of at most ``size`` characters, each repeating ~``overlap`` of the previous one."""
    text = text.strip()
    if not text:
        return []
    overlap = min(max(overlap, 0), size // 2)
    chunks: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            window = text[start:end]
            for pattern in _BREAKS:  # cut at the last good boundary in the second half
                cut = [m.end() for m in pattern.finditer(window) if m.end() > size // 2]
                if cut:
                    end = start + cut[-1]
                    break
        piece = text[start:end].strip()
        if piece:
            chunks.append(piece)
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return chunks


def file_chunks(path: Path, size: int = 1000, overlap: int = 200) -> list[str]:
    """Load and chunk one file (CSV/TSV by rows, everything else by text)."""
    text = load_text(path)
    if path.suffix.lower() in {".csv", ".tsv"}:
        return _csv_chunks(text)
    return chunk_text(text, size, overlap)
