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

_NOT_PROVIDED = {
    "SerperDevTool": "the hosted serper.dev search API",
    "EXASearchTool": "the hosted Exa search API",
    "ExaSearchTool": "the hosted Exa search API",
    "FirecrawlSearchTool": "the hosted Firecrawl API",
    "FirecrawlCrawlWebsiteTool": "the hosted Firecrawl API",
    "FirecrawlScrapeWebsiteTool": "the hosted Firecrawl API",
    "ApifyActorsTool": "the hosted Apify platform",
    "BrowserbaseLoadTool": "the hosted Browserbase service",
    "ComposioTool": "the hosted Composio platform",
    "DallETool": "OpenAI's image API",
    "VisionTool": "a hosted vision model",
    "GithubSearchTool": "the GitHub API",
    "YoutubeChannelSearchTool": "the YouTube API",
    "YoutubeVideoSearchTool": "the YouTube API",
    "MongoDBVectorSearchTool": "a MongoDB Atlas cluster",
    "PGSearchTool": "a PostgreSQL database",
    "LlamaIndexTool": "LlamaIndex",
    "WebsiteSearchTool": "retrieval over a live website (not built yet)",
    "CodeDocsSearchTool": "retrieval over online documentation (not built yet)",
}
"""crewai_tools names with no local equivalent here, and what each would need: importing one
says so instead of a bare "cannot import name", so a ported crew fails with a reason."""

__all__ = [
    "CodeExecutionResult",
    "CodeInterpreterTool",
    "DirectoryReadTool",
    "FileReadTool",
    "FileWriterTool",
    "ScrapeElementFromWebsiteTool",
    "ScrapeWebsiteTool",
]


_ELSEWHERE = {"MCPServerAdapter": "crewgraph.tools.mcp"}
"""crewai_tools names whose code lives in another crewgraph package (loaded on first access)."""


def __getattr__(name: str) -> Any:
    if name in _ELSEWHERE:
        value = getattr(importlib.import_module(_ELSEWHERE[name]), name)
        globals()[name] = value
        return value
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
    if name in _NOT_PROVIDED:
        # ImportError, not AttributeError: ``from crewgraph.toolkit import X`` would replace an
        # AttributeError's message with a generic one.
        raise ImportError(
            f"crewgraph.toolkit has no {name}: it needs {_NOT_PROVIDED[name]}, and the toolkit "
            "only ships tools that run locally (files, directories, RAG over local files, web "
            "scraping, Python code). Wrap a client of that service with @tool or BaseTool.",
            name=__name__,
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_RAG_TOOLS, *_ELSEWHERE})
