"""Flow.plot("x.html"): one self-contained interactive page (no CDN), node details inside."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from crewgraph.flow import Flow, listen, router, start

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


class Review(Flow[dict]):
    @start()
    def draft(self) -> str:
        return "d"

    @router(draft, emit=["ok", "redo"])
    def check(self) -> str:
        return "ok"

    @listen("ok")
    def publish(self) -> str:
        return "p"

    @listen("redo")
    def again(self) -> str:
        return "a"


def test_plot_html_writes_a_self_contained_interactive_page(tmp_path: Path) -> None:
    path = Review().plot(tmp_path / "flow.html", show=False)
    assert path == tmp_path / "flow.html"
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    external = [u for u in re.findall(r"""(?:src|href)=["']([^"']+)""", page) if not u.startswith("#")]
    assert external == []  # nothing loaded from outside: works offline
    assert "<script src" not in page and "cdn" not in page.lower()
    data = json.loads(re.search(r'<script id="graph-details" type="application/json">(.*?)</script>', page, re.S).group(1))
    assert data["check"]["kind"] == "router" and data["check"]["labels"] == ["ok", "redo"]
    assert "wheel" in page and "click" in page  # zoom and details handlers are in the page


def test_other_formats_still_render(tmp_path: Path) -> None:
    assert Review().plot(tmp_path / "flow.svg").read_text().lstrip().startswith("<?xml")
