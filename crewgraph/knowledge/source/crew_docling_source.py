"""``CrewDoclingSource``: documents of many formats as knowledge, without requiring docling.

CrewAI's source converts its files (and URLs) with docling's ``DocumentConverter`` to Markdown.
crewgraph's default converter reads the formats crewgraph reads elsewhere -- Markdown and text,
HTML (tags stripped), PDF, DOCX, JSON, XML, CSV -- and fetches ``http(s)://`` URLs; pass
``document_converter=`` a docling ``DocumentConverter`` (``pip install docling``) for docling's
layout-aware conversion: its ``convert(source).document.export_to_markdown()`` is used.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from crewgraph.knowledge.source.base_file_knowledge_source import KNOWLEDGE_DIRECTORY
from crewgraph.knowledge.source.base_knowledge_source import BaseKnowledgeSource

__all__ = ["CrewDoclingSource", "TextDocumentConverter"]

_URL = re.compile(r"^https?://", re.I)


class TextDocumentConverter:
    """crewgraph's converter: a path or URL to its text (Markdown-like for HTML)."""

    def convert(self, source: Path | str) -> str:
        if isinstance(source, str) and _URL.match(source):
            return self._url(source)
        path = Path(source)
        if path.suffix.lower() in (".html", ".htm"):
            return _html_text(path.read_text(encoding="utf-8", errors="replace"))
        from crewgraph.rag.loaders import load_text

        return load_text(path)

    @staticmethod
    def _url(url: str) -> str:
        import httpx

        response = httpx.get(url, follow_redirects=True, timeout=30.0)
        response.raise_for_status()
        kind = response.headers.get("content-type", "")
        return _html_text(response.text) if "html" in kind else response.text


def _html_text(html: str) -> str:
    html = re.sub(r"(?is)<(script|style)\b.*?</\1>", "", html)
    html = re.sub(r"(?i)<h([1-6])[^>]*>", lambda m: "\n" + "#" * int(m.group(1)) + " ", html)
    html = re.sub(r"(?i)<(br|/p|/div|/li|/h[1-6]|/tr)[^>]*>", "\n", html)
    html = re.sub(r"(?i)<li[^>]*>", "- ", html)
    text = unescape(re.sub(r"<[^>]+>", "", html))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in text.splitlines())).strip()


class CrewDoclingSource(BaseKnowledgeSource):
    """``CrewDoclingSource(file_paths=["handbook.docx", "https://example.com/faq.html"])``."""

    source_type: Literal["docling"] = "docling"
    file_path: list[Path | str] | None = Field(default=None, description="Deprecated in CrewAI: use file_paths")
    file_paths: list[Path | str] = Field(default_factory=list)
    safe_file_paths: list[Path | str] = Field(default_factory=list, description="The resolved paths and URLs")
    content: list[Any] = Field(default_factory=list, description="The converted documents, as last read")
    document_converter: Any = Field(default_factory=TextDocumentConverter)

    def model_post_init(self, __context: Any) -> None:
        given = self.file_paths or self.file_path or []
        if not given:
            raise ValueError(f"CrewDoclingSource needs file_paths=[...] (files under ./{KNOWLEDGE_DIRECTORY}/ or URLs)")
        self.safe_file_paths = self.validate_content()

    def validate_content(self) -> list[Path | str]:
        """The sources resolved (a string path is under ``./knowledge/``); a missing file is an error."""
        resolved: list[Path | str] = []
        for item in self.file_paths or self.file_path or []:
            if isinstance(item, str) and _URL.match(item):
                resolved.append(item)
                continue
            path = item if isinstance(item, Path) or Path(item).is_absolute() else Path(KNOWLEDGE_DIRECTORY) / item
            path = Path(path)
            if not path.is_file():
                raise FileNotFoundError(f"CrewDoclingSource: file not found: {path} (string paths are relative to "
                                        f"./{KNOWLEDGE_DIRECTORY}/ in the working directory {Path.cwd()})")
            resolved.append(path)
        return resolved

    def load_content(self) -> dict[Any, str]:
        out: dict[Any, str] = {}
        for source in self.safe_file_paths:
            try:
                out[str(source)] = _text_of(self.document_converter.convert(source))
            except FileNotFoundError:
                raise
            except Exception as exc:
                raise ValueError(f"CrewDoclingSource: cannot convert {source}: {type(exc).__name__}: {exc}") from exc
        self.content = list(out.values())
        return out

    def describe(self) -> str:
        names = ", ".join(str(p) for p in self.safe_file_paths[:3])
        return f"CrewDoclingSource({names}{', ...' if len(self.safe_file_paths) > 3 else ''})"


def _text_of(converted: Any) -> str:
    """A converter's result as text: a string, or docling's ``ConversionResult``."""
    if isinstance(converted, str):
        return converted
    document = getattr(converted, "document", converted)
    export = getattr(document, "export_to_markdown", None)
    if callable(export):
        return str(export())
    raise TypeError(f"the document converter returned {type(converted).__name__}, not text or a docling result")
