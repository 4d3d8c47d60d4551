"""URLReadTool: the content at a URL as text (HTML, PDF, DOCX, JSON, CSV, plain text...).

Granting this tool grants network egress to addresses the model chooses, so
it is guarded like CrewAI's: only http(s); a host that resolves to a
private, loopback, link-local or reserved address is refused (cloud metadata
endpoints, internal services) unless ``allow_private=True``; redirects are
followed by hand, each hop checked again; the body is abandoned past
``max_bytes``. The content type decides how text is extracted; when the
server names none (``application/octet-stream``), the URL's extension and
then the body's own bytes are consulted, and anything unidentified is
refused rather than handed to the model as mojibake. ``start_line`` and
``line_count`` return a window of the lines.
"""

from __future__ import annotations

import io
import ipaddress
import socket
import zipfile
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, Field

from crewgraph._internal.extras import import_extra
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["URLReadTool", "URLReadToolSchema"]

_PDF = "application/pdf"
_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_TEXTUAL = frozenset({
    "application/csv", "application/javascript", "application/json", "application/sql",
    "application/x-ndjson", "application/x-yaml", "application/xml", "application/yaml",
})
_UNINFORMATIVE = frozenset({"", "application/octet-stream", "binary/octet-stream"})
_BY_EXTENSION = {
    ".csv": "text/csv", ".docx": _DOCX, ".htm": "text/html", ".html": "text/html", ".json": "application/json",
    ".md": "text/markdown", ".pdf": _PDF, ".txt": "text/plain", ".xml": "application/xml",
    ".yaml": "application/yaml", ".yml": "application/yaml",
}
_MAX_REDIRECTS = 5


class URLReadToolSchema(BaseModel):
    """Input for URLReadTool."""

    url: str = Field(..., description="The http:// or https:// URL to read. Private or internal addresses are refused.")
    start_line: int | None = Field(1, ge=1, description="Line number to start reading from (1-indexed)")
    line_count: int | None = Field(None, ge=1, description="Number of lines to read. If None, reads the entire content")


def _kind_of(media_type: str) -> str | None:
    if media_type == _PDF:
        return "pdf"
    if media_type == _DOCX:
        return "docx"
    if media_type in ("text/html", "application/xhtml+xml"):
        return "html"
    if media_type.startswith("text/") or media_type in _TEXTUAL or media_type.endswith(("+json", "+xml", "+yaml")):
        return "text"
    return None


def _sniff(body: bytes) -> str | None:
    """The kind of a body from its own bytes; None when it cannot be told (refused, never guessed)."""
    if not body:
        return None
    if body.startswith(b"%PDF-"):
        return "pdf"
    if body.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                return "docx" if "word/document.xml" in archive.namelist() else None
        except zipfile.BadZipFile:
            return None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    head = text.lstrip("\ufeff").lstrip()[:15].lower()
    return "html" if head.startswith(("<!doctype html", "<html")) else "text"


def _refused_host(url: str) -> str | None:
    """Why ``url``'s host may not be fetched (it resolves to a non-public address), or None."""
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError as exc:
        return f"cannot resolve {host!r}: {exc}"
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if not address.is_global or address.is_multicast:
            return f"{host!r} resolves to the non-public address {address}"
    return None


class URLReadTool(BaseTool):
    """Reads a URL and returns its text (see the module doc for the guards)."""

    name: str = "Read content from a URL"
    description: str = (
        "A tool that reads the content at a URL and returns it as text. To use this tool, provide a 'url' "
        "parameter with an http:// or https:// address. PDF, DOCX, HTML, JSON, XML, CSV and plain-text "
        "responses are converted to text; other binary types are rejected. URLs that resolve to private or "
        "internal network addresses are refused, as are responses over the tool's size limit. Optionally "
        "provide 'start_line' and 'line_count' to read only part of the content."
    )
    args_schema: type[BaseModel] = URLReadToolSchema
    max_bytes: int = Field(default=5 * 1024 * 1024, ge=1, description="Largest body accepted")
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed for each request")
    headers: dict[str, str] | None = Field(default=None, description="Extra request headers")
    encoding: str | None = Field(default=None, description="Force this text encoding instead of the server's")
    allow_private: bool = Field(
        default=False, description="Also read private, loopback and link-local addresses (crewgraph's option)"
    )

    def _fetch(self, url: str) -> tuple[bytes, str, str] | ToolFailure:
        import httpx

        sent = {"Accept": "*/*", "User-Agent": "Mozilla/5.0 (compatible; crewgraph URLReadTool)", **(self.headers or {})}
        with httpx.Client(timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout))) as client:
            for _ in range(_MAX_REDIRECTS + 1):
                parts = urlsplit(url)
                if parts.scheme not in ("http", "https") or not parts.hostname:
                    return ToolFailure(message=f"Invalid URL {url!r}: only http:// and https:// URLs can be read.",
                                       code="invalid_url")
                refused = None if self.allow_private else _refused_host(url)
                if refused:
                    return ToolFailure(message=f"Refused to read {url}: {refused}.", code="url_refused")
                try:
                    with client.stream("GET", url, headers=sent) as response:
                        if response.is_redirect and "location" in response.headers:
                            url = urljoin(url, response.headers["location"])
                            continue
                        if response.status_code >= 400:
                            return ToolFailure(
                                message=f"HTTP {response.status_code} reading {url}",
                                code=f"http_{response.status_code}",
                                retryable=response.status_code in (408, 425, 429, 500, 502, 503, 504),
                            )
                        body = bytearray()
                        for chunk in response.iter_bytes():
                            body.extend(chunk)
                            if len(body) > self.max_bytes:
                                return ToolFailure(
                                    message=f"{url} is larger than the {self.max_bytes}-byte limit.", code="too_large"
                                )
                        return bytes(body), response.headers.get("content-type", ""), url
                except httpx.TimeoutException:
                    return ToolFailure(message=f"Timed out after {self.timeout:g}s reading {url}", code="timeout",
                                       retryable=True)
                except httpx.HTTPError as exc:
                    return ToolFailure(message=f"Could not read {url}: {type(exc).__name__}: {exc}",
                                       code="network_error", retryable=True)
        return ToolFailure(message=f"More than {_MAX_REDIRECTS} redirects reading the URL.", code="too_many_redirects")

    def _kind(self, body: bytes, content_type: str, *urls: str) -> str | None:
        declared = content_type.split(";", 1)[0].strip().lower()
        if declared not in _UNINFORMATIVE:
            return _kind_of(declared)
        for url in urls:
            path = urlsplit(url).path.lower()
            for extension, media_type in _BY_EXTENSION.items():
                if path.endswith(extension):
                    return _kind_of(media_type)
        return _sniff(body)

    def _decode(self, body: bytes, content_type: str) -> str:
        charset = next(
            (v.strip().strip('"') for k, _, v in (p.partition("=") for p in content_type.split(";")[1:])
             if k.strip().lower() == "charset"),
            None,
        )
        try:
            return body.decode(self.encoding or charset or "utf-8")
        except (LookupError, UnicodeDecodeError):
            return body.decode("utf-8", errors="replace")

    def _extract(self, body: bytes, kind: str, content_type: str) -> str:
        if kind == "pdf":
            import pypdf  # in the core dependencies
            reader = pypdf.PdfReader(io.BytesIO(body))
            pages = [f"Page {n}:\n{t}" for n, page in enumerate(reader.pages, 1) if (t := (page.extract_text() or "").strip())]
            return "\n\n".join(pages) or "[PDF with no extractable text]"
        if kind == "docx":
            docx = import_extra("docx", "tools", "Reading DOCX URLs")
            return "\n".join(p.text for p in docx.Document(io.BytesIO(body)).paragraphs if p.text.strip())
        if kind == "html":
            from crewgraph.toolkit._web import html_to_text

            return html_to_text(self._decode(body, content_type))
        return self._decode(body, content_type)

    def _run(self, url: str, start_line: int | None = 1, line_count: int | None = None) -> str | ToolFailure:
        fetched = self._fetch(url.strip())
        if isinstance(fetched, ToolFailure):
            return fetched
        body, content_type, final_url = fetched
        kind = self._kind(body, content_type, url, final_url)
        if kind is None:
            return ToolFailure(
                message=f"{url} is {content_type or 'of unknown type'}, which cannot be read as text.",
                code="unsupported_content",
            )
        try:
            text = self._extract(body, kind, content_type)
        except ImportError:
            raise
        except Exception as exc:  # a corrupt PDF or DOCX
            return ToolFailure(message=f"Could not read the {kind.upper()} at {url}: {exc}", code="unreadable")
        return _window(text, start_line or 1, line_count)


def _window(text: str, start_line: int, line_count: int | None) -> str | ToolFailure:
    if start_line == 1 and line_count is None:
        return text
    lines = text.splitlines(keepends=True)
    start = start_line - 1
    selected = lines[start : None if line_count is None else start + line_count]
    if not selected and start > 0:
        return ToolFailure(message=f"Start line {start_line} exceeds the number of lines in the content.",
                           code="start_line_out_of_range")
    return "".join(selected)
