"""`crewgraph plot` writing Mermaid (``--format mermaid`` or a ``.mmd`` file)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "export"))

from _mermaid_check import check_mermaid


def test_plot_prints_and_writes_mermaid(cli, project: Path) -> None:
    printed = cli("plot", "-o", "-", "--format", "mermaid")
    assert printed.exit_code == 0, printed.output
    chart = check_mermaid(printed.stdout)
    assert chart.subgraphs and any("research_task" in n for n in chart.nodes)
    written = cli("plot", "--format", "mermaid")
    assert written.exit_code == 0 and "crew.mmd" in written.stdout
    assert (project / "crew.mmd").read_text() == printed.stdout
    by_suffix = cli("plot", "-o", "out/plan.mmd")
    assert by_suffix.exit_code == 0 and check_mermaid((project / "out" / "plan.mmd").read_text())
    clash = cli("plot", "-o", "plan.svg", "--format", "mermaid")
    assert clash.exit_code == 1 and ".mmd" in clash.stderr and "Traceback" not in clash.output
