"""docs/knowledge.md says PDF support is in the core: pypdf is a core dependency."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_pypdf_is_a_core_dependency_and_the_docs_say_so() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.startswith("pypdf") for d in project["dependencies"])
    for extra in ("tools", "knowledge"):
        assert not any(d.startswith("pypdf") for d in project["optional-dependencies"][extra]), extra
    assert "(pypdf, in the core)" in (REPO / "docs" / "knowledge.md").read_text(encoding="utf-8")
