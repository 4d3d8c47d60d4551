"""``PDFKnowledgeSource``: the text of PDF files (pypdf, which the core installs)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from crewgraph.knowledge.source.base_file_knowledge_source import BaseFileKnowledgeSource

__all__ = ["PDFKnowledgeSource"]


class PDFKnowledgeSource(BaseFileKnowledgeSource):
    """``PDFKnowledgeSource(file_paths=["report.pdf"])``: page texts, in order."""

    source_type: Literal["pdf"] = "pdf"

    def read_file(self, path: Path) -> str:
        from pypdf import PdfReader

        reader = PdfReader(str(path))
        return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
