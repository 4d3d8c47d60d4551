"""RAG search tools (CrewAI's ``TXTSearchTool``, ``PDFSearchTool``...): semantic search in local files.

Every tool embeds the file's chunks once (per content) into a Qdrant index
with the memory layer's embedder (offline all-MiniLM-L6-v2 by default, or
``config={"embedder": {"provider": ..., "config": ...}}``) and answers a
query with the most similar passages, each labelled with its file.

Given the file (``TXTSearchTool(txt="notes.txt")``) the model is only asked
for ``search_query``; otherwise it also names the file. ``base_dir`` keeps
every path inside one directory.

CrewAI's ``similarity_threshold`` is a cosine similarity, as CrewAI's Qdrant
and ChromaDB clients score a passage; it is converted to the index's own score
(``1 / (1 + cosine distance)``). Its default is None (no floor) rather than
CrewAI's 0.6, which suits OpenAI's embeddings but drops most relevant passages
of the offline MiniLM (docs/porting.md). ``collection_name`` other than
CrewAI's default and ``adapter`` are rejected with a reason.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field, PrivateAttr, create_model

from crewgraph.toolkit._paths import confine, display, open_file
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "CSVSearchTool",
    "DOCXSearchTool",
    "DirectorySearchTool",
    "JSONSearchTool",
    "MDXSearchTool",
    "PDFSearchTool",
    "PDFSearchToolSchema",
    "RagTool",
    "TXTSearchTool",
    "XMLSearchTool",
]

_COLLECTION = "rag_tool_collection"
_MAX_DIR_FILES = 2000
_MAX_FILE_BYTES = 20 * 1024 * 1024


_CONFIG_KEYS = ("embedder", "embedding_model", "storage", "vectordb")


def _check_config(tool: str, config: dict[str, Any] | None) -> None:
    """Refuse ``config`` keys and vector stores the tools do not honour (never ignore them)."""
    unknown = sorted(set(config or {}) - set(_CONFIG_KEYS))
    if unknown:
        raise ValueError(f"{tool}(config=...) does not know {', '.join(map(repr, unknown))}: it takes "
                         f"{', '.join(map(repr, _CONFIG_KEYS))}")
    vectordb = (config or {}).get("vectordb")
    if vectordb is not None:
        provider = vectordb.get("provider", "chromadb") if isinstance(vectordb, dict) else vectordb
        if provider != "qdrant" or (isinstance(vectordb, dict) and vectordb.get("config")):
            raise ValueError(
                f"{tool}(config={{'vectordb': {vectordb!r}}}) is not supported: crewgraph's RAG tools index into their "
                "own embedded Qdrant store ({'provider': 'qdrant'} with no settings, or config={'storage': dir}); "
                "ChromaDB and Qdrant servers are for set_rag_config(...) / get_rag_client()")


class _RagBase(BaseTool):
    """Shared machinery: the embedder from ``config``, the index, result formatting."""

    config: dict[str, Any] | None = Field(default=None, description="{'embedder': {...}} and/or {'storage': dir}")
    base_dir: str | None = Field(default=None, description="Directory all paths must stay inside")
    limit: int = Field(default=5, ge=1, description="Passages returned per search")
    chunk_size: int = Field(default=1000, ge=100)
    chunk_overlap: int = Field(default=200, ge=0)
    summarize: bool = Field(default=False, description="CrewAI's flag, unused there too: passages are returned as is")
    similarity_threshold: float | None = Field(
        default=None, ge=-1.0, le=1.0,
        description="Lowest cosine similarity a passage may have (CrewAI's name); default: no floor")
    collection_name: str = Field(default=_COLLECTION, description="CrewAI's collection name (only its default)")
    adapter: Any = Field(default=None, exclude=True, description="CrewAI's RAG adapter object (not supported)")

    _index: Any = PrivateAttr(default=None)
    _field: ClassVar[str | None] = None
    """The field that, set at construction, fixes what to search (then the model only gives the query)."""

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        name = type(self).__name__
        if self.adapter is not None:
            raise ValueError(f"{name}(adapter=...) is not supported: crewgraph's RAG tools index into crewgraph's own "
                             "store; choose the embedder with config={'embedder': ...} or set_rag_config(...)")
        _check_config(name, self.config)
        if self.collection_name != _COLLECTION:
            raise ValueError(f"{name}(collection_name={self.collection_name!r}) is not supported: crewgraph keeps each "
                             "tool's sources apart in its index instead of in named collections; pass "
                             "config={'storage': directory} to keep an index in a directory of its own")
        field = self._field
        fixed = getattr(self, field) if field else None
        if field and fixed is not None:
            self.args_schema = narrow_schema(self.args_schema, {field}, self.name)
            self.description = self._fixed_description(fixed)

    def _fixed_description(self, fixed: str) -> str:
        """The description once ``fixed`` is set, so the model knows what it searches."""
        raise NotImplementedError

    def _get_index(self) -> Any:
        if self._index is None:
            from crewgraph.rag.config.utils import configured_embedder
            from crewgraph.rag.embeddings.factory import build_embedder
            from crewgraph.rag.index import get_index

            cfg = dict(self.config or {})
            spec = cfg.get("embedder") or cfg.get("embedding_model")
            # no embedder of its own: the one set with set_rag_config(...), else the offline default
            embedder = build_embedder(spec) if spec else (configured_embedder() or build_embedder(None))
            self._index = get_index(embedder, cfg.get("storage"))
        return self._index

    def _hits(self, query: str, doc_ids: list[str]) -> list[Any]:
        """The best passages among ``doc_ids``, at most ``limit``, none under ``similarity_threshold``."""
        floor = 0.0 if self.similarity_threshold is None else 1.0 / (2.0 - self.similarity_threshold)
        return list(self._get_index().search(query, doc_ids, limit=self.limit, min_score=floor))

    def _search(self, query: str, doc_ids: list[str]) -> str:
        hits = self._hits(query, doc_ids)
        if not hits:
            return "No relevant content found."
        parts = [f"[{display(Path(h.source), self.base_dir) if h.source else 'text'}]\n{h.content}" for h in hits]
        return "Relevant Content:\n" + "\n\n".join(parts)

    def _resolve(self, raw: str | None, what: str) -> Path | ToolFailure:
        if not raw:
            return ToolFailure(message=f"No {what} given: say which {what} to search.", code="missing_path")
        path = confine(raw, self.base_dir)
        if isinstance(path, ToolFailure):
            return path
        if not path.exists():
            return ToolFailure(message=f"{what.capitalize()} not found: {display(path, self.base_dir)!r}", code="file_not_found")
        return path

    def _index_file(self, path: Path) -> str | ToolFailure:
        if path.is_dir():
            return ToolFailure(message=f"{display(path, self.base_dir)!r} is a directory; use DirectorySearchTool.", code="is_a_directory")
        checked = open_file(path, self.base_dir, display(path, self.base_dir))  # regular, still inside
        if isinstance(checked, ToolFailure):
            return checked
        os.close(checked)
        try:
            return str(self._get_index().add_file(path, self.chunk_size, self.chunk_overlap))
        except Exception as exc:
            return ToolFailure(
                message=f"Could not index {display(path, self.base_dir)!r}: {type(exc).__name__}: {exc}",
                code="unreadable_document",
            )


def _schema(name: str, field: str, description: str) -> type[BaseModel]:
    model: type[BaseModel] = create_model(
        name,
        search_query=(str, Field(..., description="What to search for (a question or keywords)")),
        **{field: (str, Field(..., description=description))},  # type: ignore[call-overload]
    )
    return model


class _FileSearchTool(_RagBase):
    """One file per search; subclasses name the file field and what it is."""

    _field: ClassVar[str] = "file"
    _kind: ClassVar[str] = "file"

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that semantically searches the content of the {self._kind} {fixed!r}."

    def _run(self, search_query: str, **kwargs: Any) -> str | ToolFailure:
        path = self._resolve(kwargs.get(self._field) or getattr(self, self._field), self._kind)
        if isinstance(path, ToolFailure):
            return path
        doc = self._index_file(path)
        return doc if isinstance(doc, ToolFailure) else self._search(search_query, [doc])


class TXTSearchTool(_FileSearchTool):
    """Semantic search in a text file."""

    _field: ClassVar[str] = "txt"
    _kind: ClassVar[str] = "text file"
    name: str = "Search a txt's content"
    description: str = "A tool that semantically searches a text file. Give 'search_query' and 'txt' (its path)."
    args_schema: type[BaseModel] = _schema("TXTSearchToolSchema", "txt", "Path of the text file to search")
    txt: str | None = Field(default=None, description="Fixed text file to search (set at construction)")


class PDFSearchToolSchema(BaseModel):
    """Input for PDFSearchTool: CrewAI names its query ``query`` (the other file tools: ``search_query``)."""

    query: str = Field(..., description="Mandatory query you want to use to search the PDF's content")
    pdf: str = Field(..., description="Path of the PDF to search")


class PDFSearchTool(_FileSearchTool):
    """Semantic search in a PDF (text extracted with pypdf)."""

    _field: ClassVar[str] = "pdf"
    _kind: ClassVar[str] = "PDF"
    name: str = "Search a PDF's content"
    description: str = "A tool that semantically searches a PDF. Give 'query' and 'pdf' (its path)."
    args_schema: type[BaseModel] = PDFSearchToolSchema
    pdf: str | None = Field(default=None, description="Fixed PDF to search (set at construction)")

    def _run(self, query: str, **kwargs: Any) -> str | ToolFailure:  # type: ignore[override]
        return super()._run(query, **kwargs)


class DOCXSearchTool(_FileSearchTool):
    """Semantic search in a Word document (paragraphs and tables)."""

    _field: ClassVar[str] = "docx"
    _kind: ClassVar[str] = "DOCX document"
    name: str = "Search a DOCX's content"
    description: str = "A tool that semantically searches a DOCX document. Give 'search_query' and 'docx' (its path)."
    args_schema: type[BaseModel] = _schema("DOCXSearchToolSchema", "docx", "Path of the DOCX document to search")
    docx: str | None = Field(default=None, description="Fixed DOCX document to search (set at construction)")


class CSVSearchTool(_FileSearchTool):
    """Semantic search over the rows of a CSV file (header repeated per chunk)."""

    _field: ClassVar[str] = "csv"
    _kind: ClassVar[str] = "CSV file"
    name: str = "Search a CSV's content"
    description: str = "A tool that semantically searches a CSV file. Give 'search_query' and 'csv' (its path)."
    args_schema: type[BaseModel] = _schema("CSVSearchToolSchema", "csv", "Path of the CSV file to search")
    csv: str | None = Field(default=None, description="Fixed CSV file to search (set at construction)")


class JSONSearchTool(_FileSearchTool):
    """Semantic search in a JSON file."""

    _field: ClassVar[str] = "json_path"
    _kind: ClassVar[str] = "JSON file"
    name: str = "Search a JSON's content"
    description: str = "A tool that semantically searches a JSON file. Give 'search_query' and 'json_path' (its path)."
    args_schema: type[BaseModel] = _schema("JSONSearchToolSchema", "json_path", "Path of the JSON file to search")
    json_path: str | None = Field(default=None, description="Fixed JSON file to search (set at construction)")


class MDXSearchTool(_FileSearchTool):
    """Semantic search in an MDX or Markdown file."""

    _field: ClassVar[str] = "mdx"
    _kind: ClassVar[str] = "MDX/Markdown file"
    name: str = "Search a MDX's content"
    description: str = "A tool that semantically searches a MDX/Markdown file. Give 'search_query' and 'mdx' (its path)."
    args_schema: type[BaseModel] = _schema("MDXSearchToolSchema", "mdx", "Path of the MDX/Markdown file to search")
    mdx: str | None = Field(default=None, description="Fixed MDX/Markdown file to search (set at construction)")


class XMLSearchTool(_FileSearchTool):
    """Semantic search in an XML file (element text and attributes)."""

    _field: ClassVar[str] = "xml"
    _kind: ClassVar[str] = "XML file"
    name: str = "Search a XML's content"
    description: str = "A tool that semantically searches a XML file. Give 'search_query' and 'xml' (its path)."
    args_schema: type[BaseModel] = _schema("XMLSearchToolSchema", "xml", "Path of the XML file to search")
    xml: str | None = Field(default=None, description="Fixed XML file to search (set at construction)")


class DirectorySearchTool(_RagBase):
    """Semantic search over every text, PDF and DOCX file below a directory."""

    _field: ClassVar[str] = "directory"
    name: str = "Search a directory's content"
    description: str = "A tool that semantically searches the files in a directory. Give 'search_query' and 'directory'."
    args_schema: type[BaseModel] = _schema("DirectorySearchToolSchema", "directory", "Directory to search in")
    directory: str | None = Field(default=None, description="Fixed directory (set at construction)")

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that semantically searches the files in {fixed!r}."

    def _run(self, search_query: str, directory: str | None = None) -> str | ToolFailure:
        from crewgraph.rag.loaders import TEXT_SUFFIXES

        root = self._resolve(directory or self.directory, "directory")
        if isinstance(root, ToolFailure):
            return root
        if not root.is_dir():
            return ToolFailure(message=f"{display(root, self.base_dir)!r} is not a directory.", code="not_a_directory")
        docs: list[str] = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                try:
                    too_big = path.stat().st_size > _MAX_FILE_BYTES
                except OSError:  # a dangling symlink, a file removed meanwhile
                    continue
                if path.suffix.lower() not in TEXT_SUFFIXES or too_big:
                    continue
                doc = self._index_file(path)
                if isinstance(doc, str):
                    docs.append(doc)
                if len(docs) >= _MAX_DIR_FILES:
                    break
        if not docs:
            return ToolFailure(message=f"No searchable files in {display(root, self.base_dir)!r}.", code="empty_directory")
        return self._search(search_query, docs)


class RagTool(_RagBase):
    """A knowledge base you fill with ``add(...)`` (files, directories or raw text), then search."""

    name: str = "Knowledge base"
    description: str = "A knowledge base that can be used to answer questions. Give 'query'."
    _docs: list[str] = PrivateAttr(default_factory=list)

    def add(self, *sources: Any, data_type: str | None = None, **kwargs: Any) -> None:
        """Add paths (files or directories) or texts; ``data_type="text"`` forces text."""
        from crewgraph.rag.loaders import TEXT_SUFFIXES

        for source in sources:
            value = str(source)
            path = None if data_type == "text" else confine(value, self.base_dir)
            if isinstance(path, Path) and len(value) < 4096 and path.exists():
                files = [path] if path.is_file() else [p for p in sorted(path.rglob("*")) if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES]
                for file in files:
                    doc = self._index_file(file)
                    if isinstance(doc, ToolFailure):
                        raise ValueError(doc.message)
                    self._docs.append(doc)
            else:
                self._docs.append(self._get_index().add_text(value, "text", self.chunk_size, self.chunk_overlap))

    def _run(self, query: str) -> str | ToolFailure:
        if not self._docs:
            return ToolFailure(message="The knowledge base is empty: nothing was added to it.", code="empty_knowledge_base")
        return self._search(query, list(self._docs))
