"""render_dot with the real Graphviz `dot` binary: SVG, PNG, PDF, errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _export_graphs import make_plan, make_run

from crewgraph.errors import CrewGraphError
from crewgraph.export import ExportError, GraphvizNotFoundError, plan_to_dot, render_dot

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")


@needs_dot
def test_svg_contains_labels(tmp_path: Path) -> None:
    out = render_dot(plan_to_dot(make_plan()), tmp_path / "nested" / "dir" / "plan.svg")
    assert out == tmp_path / "nested" / "dir" / "plan.svg"
    svg = out.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for text in ("write article", "check length", "may call", "ok path", "search_web"):
        assert text in svg
    assert "Research the &quot;latest&quot;" in svg  # escaped quotes survived the round trip
    assert "stroke-dasharray" in svg  # the dashed may-call edge
    assert not list(out.parent.glob("*.tmp")), "no temporary files left behind"


@needs_dot
def test_png_and_pdf_headers(tmp_path: Path) -> None:
    png = render_dot(plan_to_dot(make_plan()), tmp_path / "plan.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pdf = render_dot(plan_to_dot(make_plan()), tmp_path / "plan.out", format="pdf")
    assert pdf == tmp_path / "plan.out" and pdf.read_bytes()[:5] == b"%PDF-"


@needs_dot
def test_graph_objects_render(tmp_path: Path) -> None:
    plan_svg = make_plan().render(tmp_path / "plan.svg", rankdir="LR")
    assert "write article" in plan_svg.read_text(encoding="utf-8")
    run_png = make_run().render(tmp_path / "run.png")
    assert Path(run_png).read_bytes()[:4] == b"\x89PNG"
    run_svg = Path(make_run().render(tmp_path / "run.svg", legend=True)).read_text(encoding="utf-8")
    assert "#f4a3a3" in run_svg and "1234 tok" in run_svg and "called" in run_svg


@needs_dot
def test_no_suffix_defaults_to_svg(tmp_path: Path) -> None:
    out = render_dot(plan_to_dot(make_plan()), tmp_path / "plan")
    assert out.name == "plan.svg" and "<svg" in out.read_text(encoding="utf-8")
    out = render_dot(plan_to_dot(make_plan()), tmp_path / "plan2", format="png")
    assert out.name == "plan2.png"


def test_dot_format_writes_text_without_graphviz(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    dot = plan_to_dot(make_plan())
    out = render_dot(dot, tmp_path / "plan.dot")
    assert out.read_text(encoding="utf-8") == dot


def test_missing_dot_binary_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GraphvizNotFoundError) as err:
        render_dot(plan_to_dot(make_plan()), tmp_path / "plan.svg")
    assert isinstance(err.value, CrewGraphError)
    assert "apt-get install graphviz" in str(err.value) and "brew install graphviz" in str(
        err.value
    )
    assert not (tmp_path / "plan.svg").exists()


def test_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="supported formats"):
        render_dot("digraph {}", tmp_path / "plan.docx")


@needs_dot
def test_invalid_dot_reports_graphviz_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="syntax error") as err:
        render_dot("digraph { a -> ; }", tmp_path / "bad.svg")
    assert not isinstance(err.value, GraphvizNotFoundError)
    assert not (tmp_path / "bad.svg").exists()
    assert not list(tmp_path.glob("*.tmp"))
