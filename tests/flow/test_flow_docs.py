"""The approval workflow in docs/flows.md runs as written (offline, FakeLLM)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "flows.md"


def test_the_approval_workflow_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    [example] = [b for b in blocks if "class PostApproval" in b]
    monkeypatch.chdir(tmp_path)
    exec(compile(example, f"{DOC}:PostApproval", "exec"), {"__name__": "flows_doc_example"})
    assert (tmp_path / "approvals.db").is_file()
