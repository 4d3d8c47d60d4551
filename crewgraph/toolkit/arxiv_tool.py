"""ArxivPaperTool: paper metadata from arXiv's query API, and optionally the PDFs.

``GET {base}/api/query?search_query=...&start=0&max_results=N`` (arXiv's
documented Atom API; no key). Each paper comes back as CrewAI's text block
(title, authors, date, PDF link, summary cut at 300 characters);
``download_pdfs=True`` also saves each PDF under ``save_dir`` (named by its
arXiv id, or its title with ``use_title_as_filename=True``), one second
apart as arXiv asks. ``base_url=`` or ``ARXIV_BASE_URL`` moves the API
(default ``http://export.arxiv.org``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, ClassVar
from xml.etree.ElementTree import Element

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ArxivPaperTool", "ArxivToolInput"]

_ATOM = "{http://www.w3.org/2005/Atom}"
_SUMMARY_CHARS = 300


class ArxivToolInput(BaseModel):
    """Input for ArxivPaperTool."""

    search_query: str = Field(..., description="Search query for Arxiv, e.g., 'transformer neural network'")
    max_results: int = Field(5, ge=1, le=100, description="Max results to fetch; must be between 1 and 100")


def _text(entry: Element, name: str) -> str | None:
    elem = entry.find(_ATOM + name)
    return " ".join(elem.text.split()) if elem is not None and elem.text else None


def _pdf_url(entry: Element) -> str | None:
    links = entry.findall(_ATOM + "link")
    for link in links:
        if link.attrib.get("title", "").lower() == "pdf":
            return link.attrib.get("href")
    return next((str(link.attrib["href"]) for link in links if "pdf" in link.attrib.get("href", "")), None)


def parse_feed(xml: str) -> list[dict[str, Any]]:
    """The papers of an arXiv Atom feed: id, title, summary, authors, date, PDF URL."""
    from crewgraph._internal.extras import import_extra

    safe_xml = import_extra("defusedxml.ElementTree", "tools", "Reading arXiv's Atom feed")
    papers = []
    for entry in safe_xml.fromstring(xml).findall(_ATOM + "entry"):
        raw_id = _text(entry, "id")
        papers.append({
            "arxiv_id": raw_id.split("/")[-1].replace(".", "_") if raw_id else "unknown",
            "title": _text(entry, "title") or "No Title",
            "summary": _text(entry, "summary") or "No Summary",
            "authors": [_text(a, "name") or "Unknown" for a in entry.findall(_ATOM + "author")],
            "published_date": _text(entry, "published") or "No Publish Date",
            "pdf_url": _pdf_url(entry),
        })
    return papers


def _block(paper: dict[str, Any]) -> str:
    summary = paper["summary"]
    if len(summary) > _SUMMARY_CHARS:
        summary = summary[:_SUMMARY_CHARS] + "..."
    return (
        f"Title: {paper['title']}\nAuthors: {', '.join(paper['authors'])}\n"
        f"Published: {paper['published_date']}\nPDF: {paper['pdf_url'] or 'N/A'}\nSummary: {summary}"
    )


class ArxivPaperTool(HostedTool):
    """Searches arXiv; each paper as a text block, PDFs saved when ``download_pdfs`` is set."""

    name: str = "Arxiv Paper Fetcher and Downloader"
    description: str = "Fetches metadata from Arxiv based on a search query and optionally downloads PDFs."
    args_schema: type[BaseModel] = ArxivToolInput
    download_pdfs: bool = False
    save_dir: str = "./arxiv_pdfs"
    use_title_as_filename: bool = False
    pause: float = Field(default=1.0, ge=0, description="Seconds between PDF downloads (arXiv asks for 1)")

    requires_extras: ClassVar[tuple[tuple[str, str], ...]] = (("defusedxml", "tools"),)
    _service: ClassVar[str] = "arXiv"
    _base_env: ClassVar[str | None] = "ARXIV_BASE_URL"
    _default_base: ClassVar[str] = "http://export.arxiv.org"

    def _run(self, search_query: str, max_results: int = 5) -> str | ToolFailure:
        from crewgraph.toolkit._http import call_text

        xml = call_text(
            "GET", self.endpoint("/api/query"), service=self._service, timeout=self.timeout,
            params={"search_query": search_query, "start": 0, "max_results": max_results},
            client=self.http_client(),
        )
        if isinstance(xml, ToolFailure):
            return xml
        try:
            papers = parse_feed(xml)
        except Exception as exc:  # defusedxml and expat raise several types for a bad feed
            return ToolFailure(message=f"arXiv answered with a feed that is not valid Atom: {exc}", code="invalid_response")
        if self.download_pdfs:
            failure = self._download(papers)
            if failure is not None:
                return failure
        return "\n\n" + "-" * 80 + "\n\n".join(_block(p) for p in papers)

    def _download(self, papers: list[dict[str, Any]]) -> ToolFailure | None:
        import httpx

        folder = Path(self.save_dir).expanduser().resolve()
        folder.mkdir(parents=True, exist_ok=True)
        for index, paper in enumerate(p for p in papers if p["pdf_url"]):
            if index and self.pause:
                time.sleep(self.pause)
            stem = paper["arxiv_id"]
            if self.use_title_as_filename:
                stem = re.sub(r'[\\/*?:"<>|]', "_", paper["title"]).strip() or stem
            try:
                response = httpx.get(paper["pdf_url"], timeout=self.timeout, follow_redirects=True)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                return ToolFailure(message=f"Could not download {paper['pdf_url']}: {exc}", code="download_failed",
                                   retryable=True)
            (folder / f"{stem[:200]}.pdf").write_bytes(response.content)
        return None
