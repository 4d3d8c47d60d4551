"""RAG search tools over local files, with the offline embedder and an index per content hash."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.toolkit.rag_tools import (
    CSVSearchTool,
    DirectorySearchTool,
    DOCXSearchTool,
    JSONSearchTool,
    MDXSearchTool,
    PDFSearchTool,
    RagTool,
    TXTSearchTool,
    XMLSearchTool,
)
from crewgraph.tools.tool_failure import ToolFailure

FACTS = [
    "The payment service retries failed charges three times with exponential backoff.",
    "Our office cafeteria serves vegetarian lasagna every Wednesday.",
    "Production databases are backed up nightly to cold storage in another region.",
]


@pytest.fixture(autouse=True)
def _isolated_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    yield


def _pdf(path: Path, lines: list[str]) -> None:
    """A minimal one-page PDF with real text (Helvetica), written by hand."""
    text = " ".join(f"({line}) Tj 0 -16 Td" for line in lines)
    stream = f"BT /F1 10 Tf 40 760 Td {text} ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    import docx

    root = tmp_path / "docs"
    root.mkdir()
    paths = {
        "txt": root / "notes.txt",
        "mdx": root / "guide.mdx",
        "csv": root / "people.csv",
        "json": root / "config.json",
        "xml": root / "catalog.xml",
        "docx": root / "report.docx",
        "pdf": root / "manual.pdf",
    }
    paths["txt"].write_text("\n\n".join(FACTS))
    paths["mdx"].write_text("# Guide\n\n<Callout>Deployments happen on Tuesdays after the change review.</Callout>\n")
    paths["csv"].write_text("name,role,city\nAda,engineer,London\nGrace,admiral,Arlington\nLinus,maintainer,Portland\n")
    paths["json"].write_text(json.dumps({"service": {"name": "billing", "timeout_seconds": 30, "owner": "payments team"}}))
    paths["xml"].write_text('<catalog><book id="b1"><title>Dune</title><author>Frank Herbert</author></book></catalog>')
    document = docx.Document()
    document.add_paragraph("The quarterly revenue grew by twelve percent.")
    document.add_paragraph("Hiring is frozen until the next fiscal year.")
    document.save(str(paths["docx"]))
    _pdf(paths["pdf"], ["To reset the router, hold the power button for ten seconds.", "The warranty lasts two years."])
    return paths


def _ok(result: Any) -> str:
    assert isinstance(result, str), result
    assert result.startswith("Relevant Content:")
    return result


def test_txt_search_finds_the_relevant_passage(files: dict[str, Path]) -> None:
    tool = TXTSearchTool(chunk_size=100, chunk_overlap=0)
    out = _ok(tool.run(search_query="How are failed payments retried?", txt=str(files["txt"])))
    first = out.split("\n\n")[0]
    assert "retries failed charges" in first and "notes.txt" in first
    assert set(tool.to_spec().parameters["properties"]) == {"search_query", "txt"}


def test_fixed_file_is_not_asked_for(files: dict[str, Path]) -> None:
    tool = TXTSearchTool(txt=str(files["txt"]), chunk_size=100, chunk_overlap=0, limit=1)
    assert set(tool.to_spec().parameters["properties"]) == {"search_query"}
    assert str(files["txt"]) in tool.description
    assert "backed up nightly" in _ok(tool.run(search_query="database backups"))


@pytest.mark.parametrize(
    ("tool_cls", "key", "arg", "query", "expected"),
    [
        (PDFSearchTool, "pdf", "pdf", "how do I reset the router", "power button"),
        (DOCXSearchTool, "docx", "docx", "revenue growth", "twelve percent"),
        (CSVSearchTool, "csv", "csv", "who lives in Portland", "Linus"),
        (JSONSearchTool, "json", "json_path", "billing timeout", "timeout_seconds"),
        (MDXSearchTool, "mdx", "mdx", "when do deployments happen", "Tuesdays"),
        (XMLSearchTool, "xml", "xml", "who wrote Dune", "Frank Herbert"),
    ],
)
def test_each_file_type(files: dict[str, Path], tool_cls: Any, key: str, arg: str, query: str, expected: str) -> None:
    tool = tool_cls()
    query_arg = "query" if tool_cls is PDFSearchTool else "search_query"  # CrewAI's PDFSearchTool says "query"
    assert set(tool.to_spec().parameters["properties"]) == {query_arg, arg}
    assert expected in _ok(tool.run(**{query_arg: query, arg: str(files[key])}))


def test_directory_search_and_index_reuse(files: dict[str, Path], tmp_path: Path) -> None:
    (files["txt"].parent / "image.png").write_bytes(b"\x89PNG\x00\x00")
    tool = DirectorySearchTool(directory=str(files["txt"].parent), limit=2)
    out = _ok(tool.run(search_query="warranty period"))
    assert "two years" in out and "manual.pdf" in out
    index = tool._get_index()
    count = index.storage.count()
    _ok(DirectorySearchTool(limit=2).run(search_query="hiring", directory=str(files["txt"].parent)))
    assert index.storage.count() == count  # same contents: nothing embedded again
    files["txt"].write_text("A brand new fact about espresso machines.")
    assert "espresso" in _ok(tool.run(search_query="coffee equipment"))
    assert index.storage.count() > count  # the changed file is a new document


def test_rag_tool_with_texts_and_paths(files: dict[str, Path]) -> None:
    tool = RagTool()
    assert isinstance(tool.run(query="anything"), ToolFailure)
    tool.add("The launch date of Project Falcon is March 3rd.", data_type="text")
    tool.add(str(files["docx"]))
    assert "March 3rd" in _ok(tool.run(query="When does Project Falcon launch?"))
    assert "Hiring is frozen" in _ok(tool.run(query="hiring policy"))


def test_failures_are_reported_to_the_model(files: dict[str, Path], tmp_path: Path) -> None:
    tool = TXTSearchTool()
    missing = tool.run(search_query="x", txt=str(tmp_path / "nope.txt"))
    assert isinstance(missing, ToolFailure) and missing.code == "file_not_found"
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02" * 10)
    failure = tool.run(search_query="x", txt=str(binary))
    assert isinstance(failure, ToolFailure) and failure.code == "unreadable_document"
    confined = TXTSearchTool(base_dir=str(files["txt"].parent))
    outside = confined.run(search_query="x", txt=str(tmp_path / "nope.txt"))
    assert isinstance(outside, ToolFailure) and outside.code == "path_outside_base_dir"
    assert isinstance(DirectorySearchTool().run(search_query="x", directory=str(files["txt"])), ToolFailure)


def test_custom_embedder_config(files: dict[str, Path]) -> None:
    calls: list[int] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return [[float("lasagna" in t.lower()), float("backed" in t.lower()), 1.0] for t in texts]

    tool = TXTSearchTool(config={"embedder": {"provider": "custom", "config": {"embedding_callable": embed}}}, chunk_size=100, chunk_overlap=0, limit=1)
    out = _ok(tool.run(search_query="lasagna", txt=str(files["txt"])))
    assert "lasagna" in out.lower()
    assert calls[0] == 3  # all chunks embedded in one call


def test_toolkit_exports_rag_tools() -> None:
    import crewgraph.toolkit as toolkit

    assert toolkit.TXTSearchTool is TXTSearchTool and toolkit.RagTool is RagTool


def test_rag_tool_accepts_a_plain_embedder_callable(tmp_path: Path) -> None:
    from crewgraph.testing import FakeEmbedder
    from crewgraph.toolkit import TXTSearchTool

    doc = tmp_path / "notes.txt"
    doc.write_text("The staging server listens on port 8080.\n\nLunch is at noon.")
    tool = TXTSearchTool(txt=str(doc), config={"embedder": FakeEmbedder(), "storage": str(tmp_path / "idx")})
    assert "8080" in tool.run(search_query="which port does staging use")


def test_directory_search_skips_what_a_file_tool_must_not_read(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    (base / "notes.txt").write_text(FACTS[0], encoding="utf-8")
    outside = tmp_path / "secret.txt"
    outside.write_text("The vault code is 4471.", encoding="utf-8")
    (base / "leak.txt").symlink_to(outside)  # inside the directory, pointing out of base_dir
    (base / "gone.txt").symlink_to(tmp_path / "missing.txt")  # dangling
    os.mkfifo(base / "pipe.txt")  # would hang a reader
    out = _ok(DirectorySearchTool(base_dir=str(base), limit=5).run(search_query="vault code", directory="."))
    assert "4471" not in out and "retries failed charges" in out


def test_similarity_threshold_is_a_cosine_floor(tmp_path: Path) -> None:
    from crewgraph.rag.embeddings.onnx_minilm import default_embedder

    notes = tmp_path / "facts.txt"
    notes.write_text("\n\n".join(FACTS), encoding="utf-8")
    query = "how often are failed payments retried?"
    vectors = default_embedder()([query, *FACTS])

    def cosine(a: list[float], b: list[float]) -> float:
        dot = sum(x * y for x, y in zip(a, b, strict=True))
        return float(dot / ((sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)))

    best = max(cosine(vectors[0], v) for v in vectors[1:])
    kept = TXTSearchTool(txt=str(notes), chunk_size=100, chunk_overlap=0, similarity_threshold=best - 0.01)
    found = kept.run(search_query=query)
    assert "payment service retries" in found and "lasagna" not in found
    dropped = TXTSearchTool(txt=str(notes), chunk_size=100, chunk_overlap=0, similarity_threshold=min(best + 0.01, 1.0))
    assert dropped.run(search_query=query) == "No relevant content found."
    assert "lasagna" in TXTSearchTool(txt=str(notes), chunk_size=100, chunk_overlap=0).run(search_query=query)


def test_crewai_collection_options_are_rejected_not_ignored() -> None:
    assert TXTSearchTool(collection_name="rag_tool_collection").collection_name == "rag_tool_collection"
    with pytest.raises(ValueError, match=r"collection_name='mine'\) is not supported"):
        TXTSearchTool(collection_name="mine")
    with pytest.raises(ValueError, match=r"PDFSearchTool\(adapter=...\) is not supported"):
        PDFSearchTool(adapter=object())


def test_crewai_config_shape_is_read_or_refused(tmp_path: Path) -> None:
    from crewgraph.toolkit.tools.rag import RagToolConfig

    notes = tmp_path / "n.txt"
    notes.write_text(FACTS[2], encoding="utf-8")
    config: RagToolConfig = {"embedding_model": {"provider": "onnx", "config": {}}, "vectordb": {"provider": "qdrant"}}
    tool = TXTSearchTool(txt=str(notes), config=dict(config))
    assert "backed up nightly" in tool.run(search_query="where do backups go?")
    with pytest.raises(ValueError, match="ChromaDB and Qdrant servers are for set_rag_config"):
        TXTSearchTool(config={"vectordb": {"provider": "chromadb"}})
    with pytest.raises(ValueError, match="ChromaDB and Qdrant servers"):
        TXTSearchTool(config={"vectordb": {"provider": "qdrant", "config": {"url": "http://q:6333"}}})
    with pytest.raises(ValueError, match=r"does not know 'vector_db'"):
        TXTSearchTool(config={"vector_db": {}})


def test_crewai_paths_of_the_toolkit() -> None:
    from crewgraph.toolkit import BedrockInvokeAgentTool, BedrockKBRetrieverTool
    from crewgraph.toolkit.aws.bedrock.agents.invoke_agent_tool import (
        BedrockInvokeAgentTool as Invoke,
    )
    from crewgraph.toolkit.aws.bedrock.knowledge_base.retriever_tool import (
        BedrockKBRetrieverTool as Retrieve,
    )
    from crewgraph.toolkit.tools.rag import ProviderSpec, VectorDbConfig
    from crewgraph.toolkit.tools.rag import RagTool as Rag

    assert Invoke is BedrockInvokeAgentTool and Retrieve is BedrockKBRetrieverTool and Rag is RagTool
    assert VectorDbConfig.__annotations__.keys() == {"provider", "config"} and ProviderSpec is not None
