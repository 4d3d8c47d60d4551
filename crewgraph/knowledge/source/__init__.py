"""CrewAI's knowledge sources (``crewai.knowledge.source.*``), one module each."""

from crewgraph.knowledge.source.base_file_knowledge_source import BaseFileKnowledgeSource
from crewgraph.knowledge.source.base_knowledge_source import BaseKnowledgeSource
from crewgraph.knowledge.source.csv_knowledge_source import CSVKnowledgeSource
from crewgraph.knowledge.source.excel_knowledge_source import ExcelKnowledgeSource
from crewgraph.knowledge.source.json_knowledge_source import JSONKnowledgeSource
from crewgraph.knowledge.source.pdf_knowledge_source import PDFKnowledgeSource
from crewgraph.knowledge.source.string_knowledge_source import StringKnowledgeSource
from crewgraph.knowledge.source.text_file_knowledge_source import TextFileKnowledgeSource

__all__ = [
    "BaseFileKnowledgeSource",
    "BaseKnowledgeSource",
    "CSVKnowledgeSource",
    "ExcelKnowledgeSource",
    "JSONKnowledgeSource",
    "PDFKnowledgeSource",
    "StringKnowledgeSource",
    "TextFileKnowledgeSource",
]
