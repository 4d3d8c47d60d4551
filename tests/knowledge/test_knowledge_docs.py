"""docs/knowledge.md's examples run as written (offline: the local embedder and the embedded store)."""

from __future__ import annotations

from pathlib import Path

from crewgraph.testing.markdown import markdown_blocks, run_markdown_examples

DOC = Path(__file__).resolve().parents[2] / "docs" / "knowledge.md"


def test_knowledge_page_examples_run(workdir: Path) -> None:
    kinds = [kind for kind, _ in markdown_blocks(DOC.read_text(encoding="utf-8"))]
    assert kinds.count("file") == 2 and kinds.count("run") >= 4
    namespace = run_markdown_examples(DOC, workdir)
    assert namespace["result"].raw == "Yes: within 30 days, with the receipt."
