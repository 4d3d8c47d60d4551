"""Fetching pages and turning HTML into text for the scrape tools.

httpx and selectolax are imported here, inside the functions, so importing
the toolkit costs nothing until a page is actually fetched. Failures come
back as :class:`ToolFailure` (timeouts, 429 and 5xx marked retryable) so the
tool node can retry them and the run records them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from crewgraph._internal.extras import import_extra
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["Page", "element_texts", "fetch_page", "html_to_text", "limit_text"]

_RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_DROP = "script, style, noscript, template, svg"
_BLOCKS = (
    "p, div, br, li, dt, dd, h1, h2, h3, h4, h5, h6, tr, ul, ol, dl, table, section, article, "
    "header, footer, nav, aside, main, pre, blockquote, figure, figcaption, form, hr"
)
USER_AGENT = "Mozilla/5.0 (compatible; crewgraph-toolkit/0.1; +https://pypi.org/project/crewgraph/)"


@dataclass(frozen=True)
class Page:
    """A fetched document: final URL, decoded body, content type, and whether it was cut."""

    url: str
    body: str
    content_type: str
    truncated: bool

    @property
    def is_html(self) -> bool:
        return "html" in self.content_type or not self.content_type


def check_url(url: str) -> ToolFailure | None:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ToolFailure(
            message=f"Invalid URL {url!r}: only absolute http:// and https:// URLs can be fetched.",
            code="invalid_url",
        )
    return None


async def fetch_page(
    url: str, *, timeout: float, max_bytes: int, headers: dict[str, str] | None = None
) -> Page | ToolFailure:
    """GET ``url`` (redirects followed), reading at most ``max_bytes`` of the body."""
    bad = check_url(url)
    if bad is not None:
        return bad
    import httpx

    sent = {"User-Agent": USER_AGENT, "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    sent.update(headers or {})
    try:
        async with (
            httpx.AsyncClient(timeout=timeout, follow_redirects=True, max_redirects=5, headers=sent) as client,
            client.stream("GET", url.strip()) as response,
        ):
            if response.status_code >= 400:
                return _http_failure(url, response.status_code, response.reason_phrase)
            chunks: list[bytes] = []
            size, truncated = 0, False
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size >= max_bytes:
                    truncated = size > max_bytes
                    break
            raw = b"".join(chunks)[:max_bytes]
            encoding = response.charset_encoding or "utf-8"
            return Page(
                url=str(response.url),
                body=raw.decode(encoding, errors="replace"),
                content_type=response.headers.get("content-type", "").lower(),
                truncated=truncated,
            )
    except httpx.TimeoutException:
        return ToolFailure(
            message=f"Timed out after {timeout:g}s fetching {url}", code="timeout", retryable=True
        )
    except httpx.HTTPError as exc:
        return ToolFailure(
            message=f"Could not fetch {url}: {type(exc).__name__}: {exc}", code="network_error"
        )


def _http_failure(url: str, status: int, reason: str) -> ToolFailure:
    return ToolFailure(
        message=f"HTTP {status} {reason} fetching {url}".replace("  ", " "),
        code=f"http_{status}",
        retryable=status in _RETRYABLE_STATUS,
        details={"status_code": status, "url": url},
    )


def _parse(html: str) -> Any:
    lexbor = import_extra("selectolax.lexbor", "tools", "Reading web pages")
    tree = lexbor.LexborHTMLParser(html)
    for node in tree.css(_DROP):
        node.decompose()
    return tree


def _node_text(node: Any) -> str:
    """Text of a node with one line per block element and whitespace collapsed."""
    for block in node.css(_BLOCKS):
        block.insert_before("\n")
        block.insert_after("\n")
    for cell in node.css("td, th"):
        cell.insert_after(" ")
    text = node.text(separator="") or ""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def html_to_text(html: str) -> str:
    """Readable text of a page: scripts and styles dropped, whitespace collapsed."""
    tree = _parse(html)
    root = tree.body or tree.root
    return _node_text(root) if root is not None else ""


def element_texts(html: str, selector: str) -> list[str] | ToolFailure:
    """Text of every element matching the CSS ``selector`` (empty ones left out)."""
    tree = _parse(html)
    try:
        nodes = tree.css(selector)
    except Exception as exc:  # selectolax raises its own error type for bad selectors
        return ToolFailure(message=f"Invalid CSS selector {selector!r}: {exc}", code="invalid_selector")
    texts = (_node_text(node) for node in nodes)
    return [t for t in texts if t]


def limit_text(text: str, max_chars: int, truncated_body: bool = False) -> str:
    """Cut ``text`` at ``max_chars`` and say so, so the model knows it saw only part."""
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n[... truncated: {len(text) - max_chars} more characters]"
    elif truncated_body:
        text += "\n[... page truncated: it is larger than the download limit]"
    return text
