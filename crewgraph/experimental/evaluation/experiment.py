"""Experiments: run a crew (or agents) over a dataset, evaluate every case, compare with a baseline.

``ExperimentRunner(dataset).run(crew)`` kicks the crew off once per test case (``inputs``,
``expected_score`` -- a number or a score per metric -- and an optional ``identifier``),
evaluates the agents with all six evaluators, and returns :class:`ExperimentResults`: each
case's scores and whether they reached the expected ones. ``to_json`` saves them;
``compare_with_baseline`` reports which cases improved, regressed or are new against the
latest run saved in a baseline file (and appends this run to it).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from datetime import UTC, datetime
from hashlib import md5
from typing import Any

from pydantic import BaseModel

from crewgraph.experimental.evaluation import _display

__all__ = ["ExperimentResult", "ExperimentResults", "ExperimentRunner"]


class ExperimentResult(BaseModel):
    """One test case's outcome."""

    identifier: str
    inputs: dict[str, Any]
    score: float | dict[str, float]
    expected_score: float | dict[str, float]
    passed: bool
    agent_evaluations: dict[str, Any] | None = None


class ExperimentResults:
    """Every case of one experiment run, with the time it ran."""

    def __init__(self, results: list[ExperimentResult], metadata: dict[str, Any] | None = None) -> None:
        self.results = results
        self.metadata = metadata or {}
        self.timestamp = datetime.now(UTC)

    def to_json(self, filepath: str | None = None) -> dict[str, Any]:
        """The run as JSON data (without the per-agent evaluations); written to ``filepath`` if given."""
        data = {"timestamp": self.timestamp.isoformat(), "metadata": self.metadata,
                "results": [r.model_dump(exclude={"agent_evaluations"}) for r in self.results]}
        if filepath:
            with open(filepath, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
            _display.say(f"Results saved to {filepath}")
        return data

    def compare_with_baseline(self, baseline_filepath: str, save_current: bool = True,
                              print_summary: bool = False) -> dict[str, Any]:
        """Compare with the latest run in ``baseline_filepath`` (a list of saved runs, or one).

        No baseline yet: this run becomes it (``{"is_baseline": True, "changes": {}}``)."""
        runs = _load_runs(baseline_filepath)
        if not runs:
            if save_current:
                _write(baseline_filepath, [self.to_json()])
                _display.say(f"Saved current results as new baseline to {baseline_filepath}")
            return {"is_baseline": True, "changes": {}}
        latest = max(runs, key=lambda run: run.get("timestamp", ""))
        comparison = self._compare_with_run(latest)
        if print_summary:
            _display.say(f"Compared with the run of {latest.get('timestamp')}: "
                         + ", ".join(f"{k}: {len(v)}" for k, v in comparison.items() if isinstance(v, list)))
        if save_current:
            _write(baseline_filepath, [*runs, self.to_json()])
            _display.say(f"Added current results to baseline file {baseline_filepath}")
        return comparison

    def _compare_with_run(self, baseline_run: dict[str, Any]) -> dict[str, Any]:
        before = {r["identifier"]: r for r in baseline_run.get("results", []) if r.get("identifier")}
        improved: list[str] = []
        regressed: list[str] = []
        unchanged: list[str] = []
        new_tests: list[str] = []
        for result in self.results:
            old = before.get(result.identifier)
            if old is None:
                new_tests.append(result.identifier)
            elif result.passed and not old.get("passed", False):
                improved.append(result.identifier)
            elif not result.passed and old.get("passed", False):
                regressed.append(result.identifier)
            else:
                unchanged.append(result.identifier)
        current = {r.identifier for r in self.results}
        return {"improved": improved, "regressed": regressed, "unchanged": unchanged, "new_tests": new_tests,
                "missing_tests": [i for i in before if i not in current],
                "total_compared": len(improved) + len(regressed) + len(unchanged),
                "baseline_timestamp": baseline_run.get("timestamp", "unknown")}


def _load_runs(path: str) -> list[dict[str, Any]]:
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return []
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise ValueError(f"baseline file {path} is not JSON ({exc}); fix or remove it") from exc
    if isinstance(data, dict) and "timestamp" in data:
        return [data]
    if isinstance(data, list):
        return [run for run in data if isinstance(run, dict)]
    raise ValueError(f"baseline file {path} holds neither a saved run nor a list of them")


def _write(path: str, runs: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(runs, handle, indent=2)


class ExperimentRunner:
    """Runs ``dataset`` (a list of ``{"inputs", "expected_score", "identifier"?}``) as an experiment."""

    def __init__(self, dataset: list[dict[str, Any]]) -> None:
        self.dataset = dataset or []
        self.evaluator: Any = None

    def run(self, crew: Any = None, agents: list[Any] | None = None, print_summary: bool = False,
            llm: Any = None) -> ExperimentResults:
        """Run every case with ``crew`` (or each of ``agents`` kicked off alone) and evaluate it
        (``llm`` is the judge; CrewAI's default model when None)."""
        from crewgraph.experimental.evaluation.agent_evaluator import create_default_evaluator

        if crew is not None and not agents:
            agents = list(crew.agents)
        if agents is None:
            raise ValueError("ExperimentRunner.run needs the agents, directly (agents=[...]) or through a crew")
        self.evaluator = create_default_evaluator(agents=agents, llm=llm)
        results = []
        for case in self.dataset:
            self.evaluator.reset_iterations_results()
            results.append(self._run_test_case(case, agents, crew))
        outcome = ExperimentResults(results)
        if print_summary:
            passed = sum(r.passed for r in results)
            _display.say(f"Experiment: {passed} of {len(results)} test cases passed")
        return outcome

    def _run_test_case(self, case: dict[str, Any], agents: list[Any], crew: Any) -> ExperimentResult:
        for key in ("inputs", "expected_score"):
            if key not in case:
                raise ValueError(f"test case {case!r} lacks {key!r}")
        inputs, expected = case["inputs"], case["expected_score"]
        identifier = case.get("identifier") or md5(str(case).encode(), usedforsecurity=False).hexdigest()
        try:
            if crew is not None:
                crew.kickoff(inputs=inputs)
            else:
                for agent in agents:
                    if not callable(getattr(agent, "kickoff", None)):
                        raise TypeError(f"agent {agent!r} cannot be kicked off on its own")
                    agent.kickoff(**inputs)  # CrewAI's form: the case's inputs are kickoff's arguments
            evaluations = self.evaluator.get_agent_evaluation()
            score = _scores(evaluations)
            return ExperimentResult(identifier=identifier, inputs=inputs, score=score, expected_score=expected,
                                    passed=_passed(expected, score), agent_evaluations=evaluations)
        except Exception as exc:  # a failing case fails; the experiment goes on (CrewAI's rule)
            _display.say(f"Error running test case: {exc}")
            return ExperimentResult(identifier=identifier, inputs=inputs, score=0.0, expected_score=expected, passed=False)


def _scores(evaluations: dict[str, Any]) -> float | dict[str, float]:
    """The mean score per metric over the agents (one metric: just its number)."""
    by_metric: dict[str, list[float]] = defaultdict(list)
    for evaluation in evaluations.values():
        for metric, score in evaluation.metrics.items():
            if score.score is not None:
                by_metric[metric.value].append(score.score)
    means = {m: sum(s) / len(s) for m, s in by_metric.items()}
    return next(iter(means.values())) if len(means) == 1 else means


def _passed(expected: float | dict[str, float], actual: float | dict[str, float]) -> bool:
    """Whether ``actual`` reaches ``expected``: number vs number; a number vs the mean of the
    metrics; every expected metric vs a number; the metrics both name, each at least expected."""
    if isinstance(expected, dict) and not expected:
        raise ValueError("expected_score must name at least one metric to evaluate")
    if isinstance(expected, dict):
        if isinstance(actual, dict):
            shared = set(expected) & set(actual)
            return bool(shared) and all(actual[k] >= expected[k] for k in shared)
        return all(actual >= v for v in expected.values())
    if isinstance(actual, dict):
        return bool(actual) and sum(actual.values()) / len(actual) >= expected
    return actual >= expected
