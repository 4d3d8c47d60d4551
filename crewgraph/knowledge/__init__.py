"""Knowledge: documents an agent or a crew can draw on, indexed in Qdrant.

``Crew(knowledge_sources=[...])`` and ``Agent(knowledge_sources=[...],
knowledge_config=KnowledgeConfig(...))`` take CrewAI's sources; before each
task a ``knowledge_retrieval`` node searches them for the task and the best
chunks go into its prompt. Files are read from ``./knowledge/``; each document
is embedded once per content. See docs/knowledge.md.
"""

from typing import Any

from crewgraph.knowledge.knowledge import Knowledge
from crewgraph.knowledge.knowledge_config import KnowledgeConfig
from crewgraph.knowledge.source import (
    BaseFileKnowledgeSource,
    BaseKnowledgeSource,
    CSVKnowledgeSource,
    ExcelKnowledgeSource,
    JSONKnowledgeSource,
    PDFKnowledgeSource,
    StringKnowledgeSource,
    TextFileKnowledgeSource,
)
from crewgraph.knowledge.storage import IndexReport, KnowledgeStorage, SearchResult

__all__ = [
    "BaseFileKnowledgeSource",
    "BaseKnowledgeSource",
    "CSVKnowledgeSource",
    "ExcelKnowledgeSource",
    "IndexReport",
    "JSONKnowledgeSource",
    "Knowledge",
    "KnowledgeConfig",
    "KnowledgeStorage",
    "PDFKnowledgeSource",
    "SearchResult",
    "StringKnowledgeSource",
    "TextFileKnowledgeSource",
]


def __getattr__(name: str) -> Any:
    if name == "CrewDoclingSource":  # loaded on first use
        from crewgraph.knowledge.source.crew_docling_source import CrewDoclingSource

        return CrewDoclingSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
