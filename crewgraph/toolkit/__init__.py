"""Ready-made tools (CrewAI's ``crewai_tools``): files, directories, web pages, Python code.

All of them run locally. Heavy libraries (httpx, selectolax, pypdf,
python-docx) load only when a tool needs them. The RAG search tools
(``TXTSearchTool``, ``PDFSearchTool``...) live in
``crewgraph.toolkit.rag_tools`` and are loaded on first access.
"""

from __future__ import annotations

import importlib
from typing import Any

from crewgraph.toolkit.code_interpreter_tool import CodeExecutionResult, CodeInterpreterTool
from crewgraph.toolkit.directory_read_tool import DirectoryReadTool
from crewgraph.toolkit.file_read_tool import FileReadTool
from crewgraph.toolkit.file_writer_tool import FileWriterTool
from crewgraph.toolkit.scrape_website_tool import ScrapeElementFromWebsiteTool, ScrapeWebsiteTool

_RAG_TOOLS = frozenset(
    {
        "CSVSearchTool",
        "DOCXSearchTool",
        "DirectorySearchTool",
        "JSONSearchTool",
        "MDXSearchTool",
        "PDFSearchTool",
        "RagTool",
        "TXTSearchTool",
        "XMLSearchTool",
    }
)

__all__ = [
    "CodeExecutionResult",
    "CodeInterpreterTool",
    "DirectoryReadTool",
    "FileReadTool",
    "FileWriterTool",
    "ScrapeElementFromWebsiteTool",
    "ScrapeWebsiteTool",
]


def __getattr__(name: str) -> Any:
    if name in _RAG_TOOLS:
        try:
            module = importlib.import_module("crewgraph.toolkit.rag_tools")
        except ModuleNotFoundError as exc:
            if exc.name != "crewgraph.toolkit.rag_tools":
                raise
            raise AttributeError(
                f"{name} is a RAG tool from crewgraph.toolkit.rag_tools, which is not available "
                "in this build"
            ) from None
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_RAG_TOOLS})
