"""Ready-made tools (CrewAI's ``crewai_tools``): files, directories, web pages, Python code,
and clients of the hosted services CrewAI's toolkit wraps (Serper, Exa, Firecrawl, Apify...).

Heavy libraries (httpx, selectolax, pypdf, python-docx) load only when a tool
needs them; each hosted tool lives in its own module, loaded on first access,
and reads its key from the environment variable CrewAI documents. The RAG search tools
(``TXTSearchTool``, ``PDFSearchTool``...) live in
``crewgraph.toolkit.rag_tools`` and are loaded on first access.
"""

from __future__ import annotations

import importlib
from typing import Any

from crewgraph._internal import crewai_paths
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

_HOSTED_TOOLS = {
    "AIMindTool": "crewgraph.toolkit.aimind_tool",
    "ApifyActorsTool": "crewgraph.toolkit.apify_tool",
    "ArxivPaperTool": "crewgraph.toolkit.arxiv_tool",
    "AzureDocumentDBToolSchema": "crewgraph.toolkit.azure_documentdb_tool",
    "AzureDocumentDBVectorSearchConfig": "crewgraph.toolkit.azure_documentdb_tool",
    "AzureDocumentDBVectorSearchTool": "crewgraph.toolkit.azure_documentdb_tool",
    "BedrockInvokeAgentTool": "crewgraph.toolkit.bedrock_tools",
    "BedrockKBRetrieverTool": "crewgraph.toolkit.bedrock_tools",
    "BraveImageSearchTool": "crewgraph.toolkit.brave_tools",
    "BraveLLMContextTool": "crewgraph.toolkit.brave_tools",
    "BraveLocalPOIsDescriptionTool": "crewgraph.toolkit.brave_tools",
    "BraveLocalPOIsTool": "crewgraph.toolkit.brave_tools",
    "BraveNewsSearchTool": "crewgraph.toolkit.brave_tools",
    "BraveSearchTool": "crewgraph.toolkit.brave_tools",
    "BraveVideoSearchTool": "crewgraph.toolkit.brave_tools",
    "BraveWebSearchTool": "crewgraph.toolkit.brave_tools",
    "BrightDataDatasetTool": "crewgraph.toolkit.brightdata_tools",
    "BrightDataSearchTool": "crewgraph.toolkit.brightdata_tools",
    "BrightDataWebUnlockerTool": "crewgraph.toolkit.brightdata_tools",
    "BrowserbaseLoadTool": "crewgraph.toolkit.browserbase_tool",
    "CodeDocsSearchTool": "crewgraph.toolkit.web_rag_tools",
    "ComposioTool": "crewgraph.toolkit.composio_tool",
    "ContextualAICreateAgentTool": "crewgraph.toolkit.contextualai_tools",
    "ContextualAIParseTool": "crewgraph.toolkit.contextualai_tools",
    "ContextualAIQueryTool": "crewgraph.toolkit.contextualai_tools",
    "ContextualAIRerankTool": "crewgraph.toolkit.contextualai_tools",
    "DallETool": "crewgraph.toolkit.openai_tools",
    "DaytonaExecTool": "crewgraph.toolkit.daytona_tools",
    "DaytonaFileTool": "crewgraph.toolkit.daytona_tools",
    "DaytonaPythonTool": "crewgraph.toolkit.daytona_tools",
    "DatabricksQueryTool": "crewgraph.toolkit.databricks_tool",
    "E2BExecTool": "crewgraph.toolkit.e2b_tools",
    "E2BFileTool": "crewgraph.toolkit.e2b_tools",
    "E2BPythonTool": "crewgraph.toolkit.e2b_tools",
    "EXASearchTool": "crewgraph.toolkit.exa_tool",
    "ExaSearchTool": "crewgraph.toolkit.exa_tool",
    "FileCompressorTool": "crewgraph.toolkit.file_compressor_tool",
    "FirecrawlCrawlWebsiteTool": "crewgraph.toolkit.firecrawl_tools",
    "FirecrawlScrapeWebsiteTool": "crewgraph.toolkit.firecrawl_tools",
    "FirecrawlSearchTool": "crewgraph.toolkit.firecrawl_tools",
    "GithubSearchTool": "crewgraph.toolkit.github_search_tool",
    "HyperbrowserLoadTool": "crewgraph.toolkit.hyperbrowser_tool",
    "JinaScrapeWebsiteTool": "crewgraph.toolkit.jina_tool",
    "LinkupSearchTool": "crewgraph.toolkit.linkup_tool",
    "LlamaIndexTool": "crewgraph.toolkit.llamaindex_tool",
    "MergeAgentHandlerTool": "crewgraph.toolkit.merge_agent_handler_tool",
    "MongoDBVectorSearchConfig": "crewgraph.toolkit.mongodb_tool",
    "MongoDBVectorSearchTool": "crewgraph.toolkit.mongodb_tool",
    "MultiOnTool": "crewgraph.toolkit.multion_tool",
    "MySQLSearchTool": "crewgraph.toolkit.mysql_search_tool",
    "NL2SQLTool": "crewgraph.toolkit.nl2sql_tool",
    "OCRTool": "crewgraph.toolkit.openai_tools",
    "OxylabsAmazonProductScraperTool": "crewgraph.toolkit.oxylabs_tools",
    "OxylabsAmazonSearchScraperTool": "crewgraph.toolkit.oxylabs_tools",
    "OxylabsGoogleSearchScraperTool": "crewgraph.toolkit.oxylabs_tools",
    "OxylabsUniversalScraperTool": "crewgraph.toolkit.oxylabs_tools",
    "PGSearchTool": "crewgraph.toolkit.pg_search_tool",
    "ParallelSearchTool": "crewgraph.toolkit.parallel_tool",
    "PatronusEvalTool": "crewgraph.toolkit.patronus_tools",
    "PatronusLocalEvaluatorTool": "crewgraph.toolkit.patronus_tools",
    "PatronusPredefinedCriteriaEvalTool": "crewgraph.toolkit.patronus_tools",
    "QdrantConfig": "crewgraph.toolkit.qdrant_tool",
    "QdrantVectorSearchTool": "crewgraph.toolkit.qdrant_tool",
    "S3ReaderTool": "crewgraph.toolkit.s3_tools",
    "S3WriterTool": "crewgraph.toolkit.s3_tools",
    "ScrapegraphScrapeTool": "crewgraph.toolkit.scrapegraph_tool",
    "ScrapegraphScrapeToolSchema": "crewgraph.toolkit.scrapegraph_tool",
    "ScrapflyScrapeWebsiteTool": "crewgraph.toolkit.scrapfly_tool",
    "SeleniumScrapingTool": "crewgraph.toolkit.selenium_tool",
    "SerpApiGoogleSearchTool": "crewgraph.toolkit.serpapi_tools",
    "SerpApiGoogleShoppingTool": "crewgraph.toolkit.serpapi_tools",
    "SerperDevTool": "crewgraph.toolkit.serper_tool",
    "SerperScrapeWebsiteTool": "crewgraph.toolkit.serper_tool",
    "SerplyJobSearchTool": "crewgraph.toolkit.serply_tools",
    "SerplyNewsSearchTool": "crewgraph.toolkit.serply_tools",
    "SerplyScholarSearchTool": "crewgraph.toolkit.serply_tools",
    "SerplyWebSearchTool": "crewgraph.toolkit.serply_tools",
    "SerplyWebpageToMarkdownTool": "crewgraph.toolkit.serply_tools",
    "SingleStoreSearchTool": "crewgraph.toolkit.singlestore_tool",
    "SnowflakeConfig": "crewgraph.toolkit.snowflake_tool",
    "SnowflakeSearchTool": "crewgraph.toolkit.snowflake_tool",
    "SpiderTool": "crewgraph.toolkit.spider_tool",
    "StagehandTool": "crewgraph.toolkit.stagehand_tool",
    "TavilyExtractorTool": "crewgraph.toolkit.tavily_tools",
    "TavilyGetResearchTool": "crewgraph.toolkit.tavily_tools",
    "TavilyResearchTool": "crewgraph.toolkit.tavily_tools",
    "TavilySearchTool": "crewgraph.toolkit.tavily_tools",
    "URLReadTool": "crewgraph.toolkit.url_read_tool",
    "VisionTool": "crewgraph.toolkit.openai_tools",
    "WaitTool": "crewgraph.toolkit.wait_tool",
    "WeaviateVectorSearchTool": "crewgraph.toolkit.weaviate_tool",
    "WebsiteSearchTool": "crewgraph.toolkit.web_rag_tools",
    "YoutubeChannelSearchTool": "crewgraph.toolkit.youtube_tools",
    "YoutubeVideoSearchTool": "crewgraph.toolkit.youtube_tools",
    "ZapierActionTool": "crewgraph.toolkit.zapier_tools",
    "ZapierActionTools": "crewgraph.toolkit.zapier_tools",
}
"""Tools that call a hosted service, each in its own module (loaded on first access)."""

__all__ = [
    "AIMindTool",
    "ApifyActorsTool",
    "ArxivPaperTool",
    "AzureDocumentDBToolSchema",
    "AzureDocumentDBVectorSearchConfig",
    "AzureDocumentDBVectorSearchTool",
    "BedrockInvokeAgentTool",
    "BedrockKBRetrieverTool",
    "BraveImageSearchTool",
    "BraveLLMContextTool",
    "BraveLocalPOIsDescriptionTool",
    "BraveLocalPOIsTool",
    "BraveNewsSearchTool",
    "BraveSearchTool",
    "BraveVideoSearchTool",
    "BraveWebSearchTool",
    "BrightDataDatasetTool",
    "BrightDataSearchTool",
    "BrightDataWebUnlockerTool",
    "BrowserbaseLoadTool",
    "CodeDocsSearchTool",
    "CodeExecutionResult",
    "CodeInterpreterTool",
    "ComposioTool",
    "ContextualAICreateAgentTool",
    "ContextualAIParseTool",
    "ContextualAIQueryTool",
    "ContextualAIRerankTool",
    "DallETool",
    "DatabricksQueryTool",
    "DaytonaExecTool",
    "DaytonaFileTool",
    "DaytonaPythonTool",
    "DirectoryReadTool",
    "E2BExecTool",
    "E2BFileTool",
    "E2BPythonTool",
    "EXASearchTool",
    "ExaSearchTool",
    "FileCompressorTool",
    "FileReadTool",
    "FileWriterTool",
    "FirecrawlCrawlWebsiteTool",
    "FirecrawlScrapeWebsiteTool",
    "FirecrawlSearchTool",
    "GithubSearchTool",
    "HyperbrowserLoadTool",
    "JinaScrapeWebsiteTool",
    "LinkupSearchTool",
    "LlamaIndexTool",
    "MCPServerAdapter",
    "MergeAgentHandlerTool",
    "MongoDBVectorSearchConfig",
    "MongoDBVectorSearchTool",
    "MultiOnTool",
    "MySQLSearchTool",
    "NL2SQLTool",
    "OCRTool",
    "OxylabsAmazonProductScraperTool",
    "OxylabsAmazonSearchScraperTool",
    "OxylabsGoogleSearchScraperTool",
    "OxylabsUniversalScraperTool",
    "PGSearchTool",
    "ParallelSearchTool",
    "PatronusEvalTool",
    "PatronusLocalEvaluatorTool",
    "PatronusPredefinedCriteriaEvalTool",
    "QdrantConfig",
    "QdrantVectorSearchTool",
    "S3ReaderTool",
    "S3WriterTool",
    "ScrapeElementFromWebsiteTool",
    "ScrapeWebsiteTool",
    "ScrapegraphScrapeTool",
    "ScrapegraphScrapeToolSchema",
    "ScrapflyScrapeWebsiteTool",
    "SeleniumScrapingTool",
    "SerpApiGoogleSearchTool",
    "SerpApiGoogleShoppingTool",
    "SerperDevTool",
    "SerperScrapeWebsiteTool",
    "SerplyJobSearchTool",
    "SerplyNewsSearchTool",
    "SerplyScholarSearchTool",
    "SerplyWebSearchTool",
    "SerplyWebpageToMarkdownTool",
    "SingleStoreSearchTool",
    "SnowflakeConfig",
    "SnowflakeSearchTool",
    "SpiderTool",
    "StagehandTool",
    "TavilyExtractorTool",
    "TavilyGetResearchTool",
    "TavilyResearchTool",
    "TavilySearchTool",
    "URLReadTool",
    "VisionTool",
    "WaitTool",
    "WeaviateVectorSearchTool",
    "WebsiteSearchTool",
    "YoutubeChannelSearchTool",
    "YoutubeVideoSearchTool",
    "ZapierActionTool",
    "ZapierActionTools",
]


_ABSENT = crewai_paths.ABSENT["crewgraph.toolkit"]
"""crewai_tools names crewgraph deliberately lacks, and why (the path table's, see docs/porting.md):
CrewAI's hosted-platform tools, and database tools no test machine can run the server of."""

_ELSEWHERE = {"MCPServerAdapter": "crewgraph.tools.mcp"}
"""crewai_tools names whose code lives in another crewgraph package (loaded on first access)."""


def __getattr__(name: str) -> Any:
    if name in ("BaseTool", "tool"):  # CrewAI's examples still write `from crewai_tools import BaseTool`
        import warnings

        warnings.warn(
            f"`from crewgraph.toolkit import {name}` (CrewAI's crewai_tools) is an old path: "
            f"import {name} from crewgraph.tools",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("crewgraph.tools"), name)
    if name in _ABSENT:
        raise ImportError(f"crewgraph.toolkit does not provide {name}: {_ABSENT[name]} (see docs/porting.md)",
                          name=name, path=__file__)
    module_name = _HOSTED_TOOLS.get(name) or _ELSEWHERE.get(name)
    if module_name is not None:
        value = getattr(importlib.import_module(module_name), name)
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
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_RAG_TOOLS, *_HOSTED_TOOLS, *_ELSEWHERE})
