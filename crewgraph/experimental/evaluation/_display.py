"""The evaluation tables printed by ``AgentEvaluator`` (rich, as crewgraph's other reports)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["feedback_tables", "say", "summary_table"]

Aggregate = Callable[..., Any]


def _console() -> Any:
    from rich.console import Console

    return Console()


def say(text: str) -> None:
    """One line on the console."""
    _console().print(text, markup=False)


def _score(score: float | None) -> str:
    return "N/A" if score is None else f"{score:.1f}"


def summary_table(iterations: dict[int, dict[str, list[Any]]], aggregate: Aggregate) -> None:
    """Per agent and metric, the score of every iteration and their average."""
    if not iterations:
        say("No evaluation results to display")
        return
    from rich.box import HEAVY_EDGE
    from rich.table import Table

    runs = sorted(iterations)
    table = Table(title="Agent Performance Scores \n (1-10 Higher is better)", box=HEAVY_EDGE)
    table.add_column("Agent/Metric", style="cyan")
    for run in runs:
        table.add_column(f"Run {run}", justify="center")
    table.add_column("Avg. Total", justify="center")
    roles = sorted({role for results in iterations.values() for role in results})
    for role in roles:
        per_run = {run: aggregate(iterations[run][role][0].agent_id, role, iterations[run][role])
                   for run in runs if iterations[run].get(role)}
        overall = {run: agg.overall_score for run, agg in per_run.items() if agg.overall_score is not None}
        if not overall:
            continue
        table.add_row(role, *[_score(overall.get(run)) if run in overall else "-" for run in runs],
                      _score(sum(overall.values()) / len(overall)))
        metrics = sorted({m for agg in per_run.values() for m in agg.metrics}, key=lambda m: m.value)
        for metric in metrics:
            cells, scores = [], []
            for run in runs:
                value = per_run[run].metrics.get(metric) if run in per_run else None
                cells.append("-" if value is None else _score(value.score))
                if value is not None and value.score is not None:
                    scores.append(value.score)
            table.add_row(f"  - {metric.title()}", *cells, _score(sum(scores) / len(scores)) if scores else "-")
    _console().print(table)


def feedback_tables(iterations: dict[int, dict[str, list[Any]]], aggregate: Aggregate) -> None:
    """Per agent and iteration, each metric's score with the judge's feedback."""
    if not iterations:
        say("No evaluation results to display")
        return
    from rich.box import ROUNDED
    from rich.table import Table

    console = _console()
    for role in sorted({role for results in iterations.values() for role in results}):
        console.print(f"\nAgent: {role}", markup=False)
        for run, results in sorted(iterations.items()):
            if not results.get(role):
                continue
            agg = aggregate(results[role][0].agent_id, role, results[role])
            console.print(f"\nIteration {run}", markup=False)
            table = Table(box=ROUNDED)
            table.add_column("Metric", style="cyan")
            table.add_column("Score (1-10)", justify="center")
            table.add_column("Feedback", style="green")
            for metric, score in agg.metrics.items():
                table.add_row(metric.title(), _score(score.score), score.feedback or "")
            if agg.overall_score is not None:
                table.add_row("Overall Score", _score(agg.overall_score), "Overall agent evaluation score")
            console.print(table)
