"""Scrape tools against a real HTTP server on 127.0.0.1 started by the test."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from crewgraph.graph import NodeContext
from crewgraph.llm.types import ToolCall
from crewgraph.nodes.tool_call import ToolCallNode
from crewgraph.toolkit import ScrapeElementFromWebsiteTool, ScrapeWebsiteTool
from crewgraph.tools import BaseTool, ToolFailure

PAGE = """<!doctype html>
<html><head><title>Crew news</title>
<style>body { color: red; }</style>
<script>var tracking = "do not show";</script></head>
<body>
  <h1>Headline   here</h1>
  <p>First   paragraph with <b>bold</b> text.</p>
  <noscript>enable js</noscript>
  <ul><li class="item">Alpha</li><li class="item">Beta <i>two</i></li></ul>
  <div id="price">42 EUR</div>
</body></html>"""

RELEASE = threading.Event()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        return

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, PAGE.encode())
        elif self.path == "/latin1":
            self._send(200, "<p>caf\u00e9</p>".encode("latin-1"), "text/html; charset=iso-8859-1")
        elif self.path == "/echo-cookie":
            self._send(200, f"<p>{self.headers.get('Cookie', 'none')}</p>".encode())
        elif self.path == "/plain":
            self._send(200, b"just   text\n", "text/plain")
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/big":
            self._send(200, b"<p>" + b"word " * 20_000 + b"</p>")
        elif self.path == "/unavailable":
            self._send(503, b"down")
        elif self.path == "/slow":
            RELEASE.wait(5)
            self._send(200, b"late")
        else:
            self._send(404, b"missing")


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        RELEASE.set()
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


def _call(tool: BaseTool, args: dict[str, str]) -> str:
    node = ToolCallNode(id="t", call=ToolCall(id="c", name=tool.name, arguments=json.dumps(args)), tool=tool)
    return str(asyncio.run(node.run(NodeContext())).output.text)


def test_page_text_strips_scripts_and_collapses_whitespace(base_url: str) -> None:
    text = ScrapeWebsiteTool().run(website_url=f"{base_url}/page")
    assert text == (
        "Headline here\nFirst paragraph with bold text.\nAlpha\nBeta two\n42 EUR"
    )
    assert "tracking" not in text and "color" not in text and "enable js" not in text


def test_model_call_and_redirects(base_url: str) -> None:
    assert _call(ScrapeWebsiteTool(), {"website_url": f"{base_url}/redirect"}).startswith("Headline here")


def test_fixed_url_narrows_schema(base_url: str) -> None:
    t = ScrapeWebsiteTool(website_url=f"{base_url}/page")
    assert t.args_schema.model_fields == {}
    assert base_url in t.description
    assert _call(t, {}).endswith("42 EUR")


def test_non_html_and_charset(base_url: str) -> None:
    assert ScrapeWebsiteTool().run(website_url=f"{base_url}/plain") == "just   text"
    assert ScrapeWebsiteTool().run(website_url=f"{base_url}/latin1") == "caf\u00e9"


def test_http_errors_are_clear_failures(base_url: str) -> None:
    missing = ScrapeWebsiteTool().run(website_url=f"{base_url}/nope")
    assert isinstance(missing, ToolFailure)
    assert missing.message == f"HTTP 404 Not Found fetching {base_url}/nope"
    assert (missing.code, missing.retryable) == ("http_404", False)
    down = ScrapeWebsiteTool().run(website_url=f"{base_url}/unavailable")
    assert (down.code, down.retryable) == ("http_503", True)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/x", "example.com", ""])
def test_only_http_urls(url: str) -> None:
    result = ScrapeWebsiteTool().run(website_url=url)
    assert isinstance(result, ToolFailure)
    assert result.code in {"invalid_url", "missing_url"}


def test_size_and_length_limits(base_url: str) -> None:
    cut = ScrapeWebsiteTool(max_bytes=1000).run(website_url=f"{base_url}/big")
    assert "larger than the download limit" in cut
    short = ScrapeWebsiteTool(max_chars=20).run(website_url=f"{base_url}/big")
    assert short.startswith("word word") and "more characters]" in short


def test_timeout_is_a_retryable_failure(base_url: str) -> None:
    result = ScrapeWebsiteTool(timeout=0.2).run(website_url=f"{base_url}/slow")
    assert isinstance(result, ToolFailure)
    assert result.code == "timeout" and result.retryable


def test_connection_refused_is_a_failure() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    result = ScrapeWebsiteTool().run(website_url=f"http://127.0.0.1:{port}/")
    assert isinstance(result, ToolFailure) and result.code == "network_error"


def test_element_scrape(base_url: str) -> None:
    t = ScrapeElementFromWebsiteTool()
    assert t.run(website_url=f"{base_url}/page", css_element="li.item") == "Alpha\n\nBeta two"
    assert _call(t, {"website_url": f"{base_url}/page", "css_element": "#price"}) == "42 EUR"
    none = t.run(website_url=f"{base_url}/page", css_element="table")
    assert none == f"No elements matching 'table' were found on {base_url}/page."
    bad = t.run(website_url=f"{base_url}/page", css_element="div[")
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_selector"


def test_element_scrape_fixed_arguments(base_url: str) -> None:
    t = ScrapeElementFromWebsiteTool(website_url=f"{base_url}/page", css_element="h1")
    assert t.args_schema.model_fields == {}
    assert _call(t, {}) == "Headline here"
    only_url = ScrapeElementFromWebsiteTool(website_url=f"{base_url}/page")
    assert list(only_url.args_schema.model_fields) == ["css_element"]


def test_cookies_are_sent(base_url: str) -> None:
    tool = ScrapeElementFromWebsiteTool(cookies={"session": "abc", "lang": "en"})
    assert tool.run(website_url=base_url + "/echo-cookie", css_element="p") == "session=abc; lang=en"
    assert ScrapeWebsiteTool(cookies={"a": "1"}, headers={"Cookie": "b=2"}).run(website_url=base_url + "/echo-cookie") == "b=2; a=1"
