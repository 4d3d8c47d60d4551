"""ArxivPaperTool against a local stand-in serving arXiv's Atom feed and a PDF."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import ArxivPaperTool
from crewgraph.tools import ToolFailure


def _feed(request: FakeRequestRecord) -> tuple[int, str, dict[str, str]]:
    host = "http://" + request.headers["host"]
    entry = f"""<entry>
    <id>http://arxiv.org/abs/2401.00001v1</id>
    <published>2024-01-01T00:00:00Z</published>
    <title>Graphs of
      Agents</title>
    <summary>{"A long summary. " * 40}</summary>
    <author><name>Ada Lovelace</name></author><author><name>Alan Turing</name></author>
    <link href="http://arxiv.org/abs/2401.00001v1" rel="alternate" type="text/html"/>
    <link title="pdf" href="{host}/pdf/2401.00001v1" rel="related" type="application/pdf"/>
  </entry>"""
    body = f'<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">{entry}</feed>'
    return 200, body, {"Content-Type": "application/atom+xml"}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "GET /api/query": _feed,
        "GET /pdf/2401.00001v1": (200, b"%PDF-1.4 fake", {"Content-Type": "application/pdf"}),
    }) as service:
        yield service


def test_search_formats_papers(api: FakeHTTPService) -> None:
    text = ArxivPaperTool(base_url=api.url).run(search_query="graph agents", max_results=3)
    assert api.requests_to("/api/query")[-1].query == {"search_query": ["graph agents"], "start": ["0"],
                                                       "max_results": ["3"]}
    assert text.startswith("\n\n" + "-" * 80)
    assert "Title: Graphs of Agents\nAuthors: Ada Lovelace, Alan Turing\nPublished: 2024-01-01T00:00:00Z\n" in text
    assert f"PDF: {api.url}/pdf/2401.00001v1" in text
    summary = text.split("Summary: ")[1]
    assert summary.endswith("...") and len(summary) == 303


def test_download_pdfs(api: FakeHTTPService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARXIV_BASE_URL", api.url)
    ArxivPaperTool(download_pdfs=True, save_dir=str(tmp_path / "pdfs")).run(search_query="x")
    assert (tmp_path / "pdfs" / "2401_00001v1.pdf").read_bytes() == b"%PDF-1.4 fake"
    ArxivPaperTool(download_pdfs=True, save_dir=str(tmp_path), use_title_as_filename=True).run(search_query="x")
    assert (tmp_path / "Graphs of Agents.pdf").exists()


def test_bad_arguments_and_bad_feed(api: FakeHTTPService) -> None:
    with pytest.raises(ValueError, match="max_results"):
        ArxivPaperTool(base_url=api.url).run(search_query="x", max_results=500)
    api.route("GET /broken/api/query", (200, "<feed><entry>", {"Content-Type": "application/atom+xml"}))
    broken = ArxivPaperTool(base_url=api.url + "/broken").run(search_query="x")
    assert isinstance(broken, ToolFailure) and broken.code == "invalid_response"
