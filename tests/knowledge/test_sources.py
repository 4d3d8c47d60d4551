"""Knowledge sources read what CrewAI's do, from where CrewAI looks (./knowledge/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _knowledge_files import write_pdf, write_xlsx

from crewgraph.knowledge.source.csv_knowledge_source import CSVKnowledgeSource
from crewgraph.knowledge.source.excel_knowledge_source import ExcelKnowledgeSource
from crewgraph.knowledge.source.json_knowledge_source import JSONKnowledgeSource
from crewgraph.knowledge.source.pdf_knowledge_source import PDFKnowledgeSource
from crewgraph.knowledge.source.string_knowledge_source import StringKnowledgeSource
from crewgraph.knowledge.source.text_file_knowledge_source import TextFileKnowledgeSource


def _text(source: object) -> str:
    return "\n".join(text for _, text in source.documents())  # type: ignore[attr-defined]


def test_string_source_and_chunking_with_overlap() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    source = StringKnowledgeSource(content=text, chunk_size=300, chunk_overlap=60)
    chunks = source._chunk_text(_text(source))
    assert len(chunks) > 10 and all(len(c) <= 300 for c in chunks)
    first_tail = chunks[0][-40:]
    assert first_tail.split()[-1] in chunks[1]  # neighbours share text
    with pytest.raises(ValueError, match="chunk_overlap"):
        StringKnowledgeSource(content="x", chunk_size=100, chunk_overlap=100)


def test_file_paths_are_relative_to_the_knowledge_directory(workdir: Path) -> None:
    (workdir / "knowledge" / "policy.txt").write_text("Refunds within 30 days.")
    source = TextFileKnowledgeSource(file_paths=["policy.txt"])
    assert source.safe_file_paths == [Path("knowledge/policy.txt")]
    assert _text(source) == "Refunds within 30 days."
    outside = workdir / "elsewhere.md"
    outside.write_text("absolute paths work too")
    assert _text(TextFileKnowledgeSource(file_paths=outside)) == "absolute paths work too"
    assert _text(TextFileKnowledgeSource(file_path="policy.txt")) == "Refunds within 30 days."


def test_missing_file_is_an_error_naming_the_path(workdir: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"knowledge/nope\.txt.*relative to \./knowledge/"):
        TextFileKnowledgeSource(file_paths=["nope.txt"])
    with pytest.raises(ValueError, match="needs file_paths"):
        TextFileKnowledgeSource(file_paths=[])


def test_csv_rows_keep_their_header(workdir: Path) -> None:
    (workdir / "knowledge" / "staff.csv").write_text("name,role\nAda,engineer\nGrace,admiral\n")
    assert _text(CSVKnowledgeSource(file_paths=["staff.csv"])) == "name: Ada, role: engineer\nname: Grace, role: admiral"


def test_json_is_flattened_to_key_paths(workdir: Path) -> None:
    (workdir / "knowledge" / "catalog.json").write_text(
        json.dumps({"products": [{"name": "lamp", "price": 12.5}], "currency": "EUR"})
    )
    text = _text(JSONKnowledgeSource(file_paths=["catalog.json"]))
    assert text.splitlines() == ["products.0.name: lamp", "products.0.price: 12.5", "currency: EUR"]
    (workdir / "knowledge" / "broken.json").write_text("{nope")
    with pytest.raises(ValueError, match=r"broken\.json.*not valid JSON: line 1"):
        _text(JSONKnowledgeSource(file_paths=["broken.json"]))


def test_pdf_text(workdir: Path) -> None:
    write_pdf(workdir / "knowledge" / "manual.pdf", ["The reset button is red.", "Hold it for 5 seconds."])
    text = _text(PDFKnowledgeSource(file_paths=["manual.pdf"]))
    assert "The reset button is red." in text and "Hold it for 5 seconds." in text


def test_excel_every_sheet(workdir: Path) -> None:
    pytest.importorskip("openpyxl")
    write_xlsx(
        workdir / "knowledge" / "prices.xlsx",
        {"Fruit": [["item", "price"], ["apple", 1.2], ["pear", None]], "Empty": [], "Veg": [["item"], ["leek"]]},
    )
    text = _text(ExcelKnowledgeSource(file_paths=["prices.xlsx"]))
    assert text == "Sheet: Fruit\nitem: apple, price: 1.2\nitem: pear\n\nSheet: Veg\nitem: leek"


def test_custom_source_with_crewai_add() -> None:
    from crewgraph.knowledge.source.base_knowledge_source import BaseKnowledgeSource

    class News(BaseKnowledgeSource):
        def load_content(self) -> dict[str, str]:
            return {"a": "Mars rover found water.", "b": "Moon base opens."}

    class ChunkedNews(News):
        def add(self) -> None:  # CrewAI's custom-source pattern
            for _, text in self.load_content().items():
                self.chunks.extend(self._chunk_text(text))
            self._save_documents()

    assert [t for _, t in News().documents()] == ["Mars rover found water.", "Moon base opens."]
    assert [t for _, t in ChunkedNews().documents()] == ["Mars rover found water.", "Moon base opens."]
