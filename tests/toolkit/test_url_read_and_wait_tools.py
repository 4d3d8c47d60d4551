"""URLReadTool against a local web server (types, redirects, limits, the private-address guard) and WaitTool."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import Iterator

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.toolkit import URLReadTool, WaitTool
from crewgraph.tools import ToolFailure


def _docx() -> bytes:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("Hello from Word")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def site() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "GET /page": (200, "<html><body><h1>Title</h1><script>x()</script><p>Body</p></body></html>",
                      {"Content-Type": "text/html; charset=utf-8"}),
        "GET /data.json": (200, json.dumps({"a": 1}), {"Content-Type": "application/json"}),
        "GET /lines": (200, "one\ntwo\nthree\nfour\n", {"Content-Type": "text/plain"}),
        "GET /blob": (200, b"\x00\x01\x02\x03", {"Content-Type": "application/octet-stream"}),
        "GET /report.csv": (200, b"a,b\n1,2\n", {"Content-Type": "application/octet-stream"}),
        "GET /sniffed": (200, b"<!DOCTYPE html><html><body><p>Sniffed</p></body></html>",
                         {"Content-Type": "application/octet-stream"}),
        "GET /word": (200, _docx(), {"Content-Type": "application/octet-stream"}),
        "GET /moved": (302, "", {"Location": "/lines"}),
        "GET /big": (200, "x" * 5000, {"Content-Type": "text/plain"}),
        "GET /gone": (404, "missing", {"Content-Type": "text/plain"}),
    }) as service:
        yield service


def test_reads_html_json_text_and_word(site: FakeHTTPService) -> None:
    tool = URLReadTool(allow_private=True)
    assert tool.run(url=site.url + "/page") == "Title\nBody"
    assert json.loads(tool.run(url=site.url + "/data.json")) == {"a": 1}
    assert tool.run(url=site.url + "/report.csv") == "a,b\n1,2\n"  # octet-stream, told by the extension
    assert tool.run(url=site.url + "/sniffed") == "Sniffed"  # told by the bytes
    assert tool.run(url=site.url + "/word") == "Hello from Word"


def test_line_window_redirects_and_refusals(site: FakeHTTPService) -> None:
    tool = URLReadTool(allow_private=True, max_bytes=1000)
    assert tool.run(url=site.url + "/moved", start_line=2, line_count=2) == "two\nthree\n"
    assert tool.run(url=site.url + "/lines", start_line=9).code == "start_line_out_of_range"
    assert tool.run(url=site.url + "/blob").code == "unsupported_content"
    assert tool.run(url=site.url + "/big").code == "too_large"
    assert tool.run(url=site.url + "/gone").code == "http_404"
    assert tool.run(url="ftp://example.com/x").code == "invalid_url"


def test_private_addresses_are_refused_by_default(site: FakeHTTPService) -> None:
    refused = URLReadTool().run(url=site.url + "/page")
    assert isinstance(refused, ToolFailure) and refused.code == "url_refused" and "127.0.0.1" in refused.message
    hop = URLReadTool().run(url="http://localhost:1/x")
    assert isinstance(hop, ToolFailure) and hop.code == "url_refused"


def test_wait_caps_and_reports() -> None:
    tool = WaitTool(max_seconds=0.05)
    assert "at most 0.05 seconds" in tool.description
    started = time.monotonic()
    result = tool.run(seconds=10, reason="build")
    assert 0.04 <= time.monotonic() - started < 1
    assert result.startswith("Waited 0.05 seconds. Requested 10 seconds, capped at 0.05") and result.endswith("Reason: build")
    assert asyncio.run(tool.arun(seconds=0.01)) == "Waited 0.01 seconds."
    with pytest.raises(ValueError, match="seconds"):
        tool.run(seconds=-1)
