"""The layout stays readable on a real-sized run: 10 tasks, 50 tool calls, drawn by the real
`dot` to PNG, whose size is read from the file itself (the old drawing of such a run was
one row thousands of pixels wide)."""

from __future__ import annotations

import shutil
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _big_crew import big_run

from crewgraph.graph import RunGraph

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.fixture(scope="module")
def runs() -> dict[str, RunGraph]:
    return {"parallel": big_run(10, parallel=True), "one call per turn": big_run(10, parallel=False)}


@pytest.mark.parametrize("kind", ["parallel", "one call per turn"])
def test_ten_tasks_fifty_calls_render_to_a_reasonable_shape(
    runs: dict[str, RunGraph], kind: str, tmp_path: Path
) -> None:
    run = runs[kind]
    assert sum(1 for r in run.records() if r.kind == "tool" and r.parent) == 50
    width, height = png_size(Path(run.render(tmp_path / "run.png")))
    # measured with Graphviz 2.43: about 1,470 x 3,800 px for both
    assert width <= 2200, f"{width} px wide"
    assert 0.2 <= width / height <= 2.0, f"{width} x {height}"
    # every call drawn on its own still wraps into rows of five under its step
    full_width, full_height = png_size(Path(run.render(tmp_path / "full.png", collapse=False)))
    assert full_width <= 2200 and 0.2 <= full_width / full_height <= 2.0, f"{full_width} x {full_height}"


def test_svg_node_ids_are_the_run_node_ids(runs: dict[str, RunGraph], tmp_path: Path) -> None:
    run = runs["parallel"]
    root = ET.parse(run.render(tmp_path / "run.svg")).getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    drawn = {g.get("id") for g in root.iterfind(".//svg:g[@class='node']", ns)}
    groups = {g["id"]: g["members"] for g in run.to_json()["groups"]}
    ids = {r.node_id for r in run.records()}
    assert drawn <= ids  # every drawn node's element id is a node id...
    for group_id, members in groups.items():  # ...a collapsed one the first of its members
        assert group_id in drawn and not set(members[1:]) & drawn
    clusters = {g.get("id") for g in root.iterfind(".//svg:g[@class='cluster']", ns)}
    assert "cluster:t1_research_step_0" in clusters
