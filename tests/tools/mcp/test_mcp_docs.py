"""docs/mcp.md's examples run as written (offline, against the page's own stdio server)."""

from __future__ import annotations

from pathlib import Path

from crewgraph.testing.markdown import markdown_blocks, run_markdown_examples

DOC = Path(__file__).resolve().parents[3] / "docs" / "mcp.md"


def test_mcp_page_examples_run(tmp_path: Path) -> None:
    kinds = [kind for kind, _ in markdown_blocks(DOC.read_text(encoding="utf-8"))]
    assert kinds.count("file") == 1 and kinds.count("run") >= 4
    namespace = run_markdown_examples(DOC, tmp_path)
    assert namespace["result"].raw == "Pack sunglasses."
