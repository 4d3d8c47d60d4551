"""The package's metadata: what `pip show` and an index page would show, and the README
rendering as a package description."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


def _project() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_metadata_fields() -> None:
    project = _project()
    assert project["authors"] and all(a.get("name") for a in project["authors"])
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert "MIT License" in (REPO / "LICENSE").read_text(encoding="utf-8")
    assert len(project["keywords"]) >= 5
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the license expression says it
    assert "urls" not in project  # no public repository or docs site to point at (see pyproject.toml)
    assert project["readme"] == "README.md"


def test_readme_renders_as_a_package_description() -> None:
    markdown = pytest.importorskip("readme_renderer.markdown")
    text = (REPO / "README.md").read_text(encoding="utf-8")
    html = markdown.render(text)
    assert html is not None and "<h1" in html and "crewgraph" in html
    # commands that need the clone say so before they appear
    first_block = text.index("```bash")
    assert "clone" in text[:first_block]
