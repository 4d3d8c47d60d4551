"""``TextFileKnowledgeSource``: plain text files (``.txt``, ``.md``...), read as UTF-8."""

from __future__ import annotations

from typing import Literal

from crewgraph.knowledge.source.base_file_knowledge_source import BaseFileKnowledgeSource

__all__ = ["TextFileKnowledgeSource"]


class TextFileKnowledgeSource(BaseFileKnowledgeSource):
    """``TextFileKnowledgeSource(file_paths=["notes.txt"])`` reads ``./knowledge/notes.txt``."""

    source_type: Literal["text_file"] = "text_file"
