"""``Crew.test``: run the crew ``n_iterations`` times and have a model score every task 1-10.

As CrewAI tests a crew: the judge is an agent ("Task Execution Evaluator") on ``eval_llm``
doing an evaluation task with a structured ``quality`` output, so the judging runs through
crewgraph's graph like any task. The table printed at the end has a row per task (its
score in each run and the average, and the agent that did it), the crew's average per
run, and each run's execution time in seconds. :meth:`CrewEvaluator.result` returns the
same numbers as a :class:`CrewTestResult` (``Crew.test`` returns it), and every score is
also published as a ``CrewTestResultEvent``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import BaseModel, Field

from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.training_events import (
    CrewTestCompletedEvent,
    CrewTestFailedEvent,
    CrewTestResultEvent,
    CrewTestStartedEvent,
)
from crewgraph.training.evaluation import as_llm

__all__ = ["CrewEvaluator", "CrewTestResult", "TaskEvaluationPydanticOutput", "TaskScores", "run_crew_test"]


class TaskEvaluationPydanticOutput(BaseModel):
    quality: float = Field(
        description="A score from 1 to 10 evaluating on completion, quality, and overall performance from "
        "the task_description and task_expected_output to the actual Task Output."
    )


class TaskScores(BaseModel):
    """One task's scores over the runs (``scores[i]``: run ``i + 1``)."""

    task: str
    agent: str | None = None
    scores: list[float]
    execution_times: list[float]

    @property
    def average(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0


class CrewTestResult(BaseModel):
    """What ``Crew.test`` measured: per task, per run, the score and the seconds it took."""

    model: str
    n_iterations: int
    tasks: list[TaskScores]
    run_execution_times: list[float] = Field(description="Seconds each run's tasks took, summed.")

    @property
    def crew_scores(self) -> list[float]:
        """The crew's score in each run: the average of its tasks' scores."""
        runs = range(self.n_iterations)
        return [sum(t.scores[i] for t in self.tasks) / len(self.tasks) for i in runs] if self.tasks else []

    @property
    def crew_average(self) -> float:
        return sum(t.average for t in self.tasks) / len(self.tasks) if self.tasks else 0.0


class CrewEvaluator:
    """Scores the tasks of ``crew``'s runs with ``eval_llm`` (CrewAI's ``CrewEvaluator``)."""

    def __init__(self, crew: Any, eval_llm: Any) -> None:
        self.crew = crew
        self.llm = as_llm(eval_llm, "Crew.test(eval_llm=...)")
        self.tasks_scores: defaultdict[int, list[float]] = defaultdict(list)
        self.run_execution_times: defaultdict[int, list[float]] = defaultdict(list)
        self.iteration = 0
        self._agents: dict[int, str | None] = {}

    def set_iteration(self, iteration: int) -> None:
        self.iteration = iteration

    def _evaluator_agent(self) -> Any:
        from crewgraph.spec.agent import Agent

        return Agent(
            role="Task Execution Evaluator",
            goal="Your goal is to evaluate the performance of the agents in the crew based on the tasks they "
            "have performed using score from 1 to 10 evaluating on completion, quality, and overall performance.",
            backstory="Evaluator agent for crew evaluation with precise capabilities to evaluate the performance "
            "of the agents in the crew based on the tasks they have performed",
            llm=self.llm,
        )

    def evaluate(self, task: Any, output: Any, duration: float) -> float:
        """Score one task's output (1-10) and record it, with its duration, for this iteration."""
        from crewgraph.spec.task import Task

        agent = task.agent
        description = _literal(getattr(output, "description", None) or task.description)
        expected = _literal(getattr(output, "expected_output", None) or task.expected_output)
        judge = Task(
            description=(
                "Based on the task description and the expected output, compare and evaluate the performance of "
                "the agents in the crew based on the Task Output they have performed using score from 1 to 10 "
                "evaluating on completion, quality, and overall performance. "
                f"task_description: {description} "
                f"task_expected_output: {expected} "
                f"agent: {_literal(agent.role) if agent is not None else None} "
                f"agent_goal: {_literal(agent.goal) if agent is not None else None} "
                f"Task Output: {_literal(str(getattr(output, 'raw', output)))}"
            ),
            expected_output="Evaluation Score from 1 to 10 based on the performance of the agents on the tasks",
            output_pydantic=TaskEvaluationPydanticOutput,
        )
        result = judge.execute_sync(agent=self._evaluator_agent())
        verdict = result.pydantic
        if not isinstance(verdict, TaskEvaluationPydanticOutput):
            raise ValueError(f"the evaluation of task {task.name or task.description[:40]!r} is not a quality score")
        crewgraph_event_bus.emit(self.crew, CrewTestResultEvent(
            crew_name=self.crew.name, quality=verdict.quality, execution_duration=duration,
            model=str(getattr(self.llm, "model", self.llm)), task_name=task.name, iteration=self.iteration,
        ))
        self.tasks_scores[self.iteration].append(verdict.quality)
        self.run_execution_times[self.iteration].append(duration)
        return verdict.quality

    def evaluate_run(self, output: Any) -> None:
        """Score every task of one kickoff's output (in task order)."""
        graph = output.graph
        plans = self.crew.compile().meta.get("tasks", [])
        outputs = list(output.tasks_output)
        for n, plan in enumerate(plans):
            task = self.crew.tasks[plan["index"]]
            # every task produced an output unless a conditional one was skipped: then ask the task
            task_output = outputs[n] if len(outputs) == len(plans) else task.output
            if task_output is None:
                continue  # a conditional task that did not run
            self._agents[plan["index"]] = task_output.agent or (task.agent.role if task.agent else None)
            self.evaluate(task, task_output, _task_seconds(graph, plan["key"]))

    def result(self) -> CrewTestResult:
        runs = sorted(self.tasks_scores)
        rows: list[TaskScores] = []
        for index, task in enumerate(self.crew.tasks):
            scores = [self.tasks_scores[r][index] for r in runs if index < len(self.tasks_scores[r])]
            times = [self.run_execution_times[r][index] for r in runs if index < len(self.run_execution_times[r])]
            if scores:
                rows.append(TaskScores(task=task.name or f"Task {index + 1}", agent=self._agents.get(index),
                                       scores=scores, execution_times=times))
        return CrewTestResult(
            model=str(getattr(self.llm, "model", self.llm)), n_iterations=len(runs), tasks=rows,
            run_execution_times=[sum(self.run_execution_times[r]) for r in runs],
        )

    def print_crew_evaluation_result(self) -> None:
        """The table of scores (CrewAI's layout) on the console."""
        from rich.box import HEAVY_EDGE
        from rich.console import Console
        from rich.table import Table

        result = self.result()
        table = Table(title="Tasks Scores \n (1-10 Higher is better)", box=HEAVY_EDGE)
        table.add_column("Tasks/Crew/Agents", style="cyan")
        for run in range(1, result.n_iterations + 1):
            table.add_column(f"Run {run}", justify="center")
        table.add_column("Avg. Total", justify="center")
        table.add_column("Agents", style="green")
        for index, row in enumerate(result.tasks):
            table.add_row(f"Task {index + 1}", *[f"{s:.1f}" for s in row.scores], f"{row.average:.1f}",
                          f"- {row.agent}" if row.agent else "")
        table.add_row("Crew", *[f"{s:.2f}" for s in result.crew_scores], f"{result.crew_average:.1f}", "")
        times = [int(t) for t in result.run_execution_times]
        avg = int(sum(times) / len(times)) if times else 0
        table.add_row("Execution Time (s)", *map(str, times), str(avg), "")
        console = Console()
        console.print("\n")
        console.print(table)


def _literal(text: str) -> str:
    """Text quoted into the judge's task: its ``{name}`` braces doubled, so they are not placeholders."""
    return text.replace("{", "{{").replace("}", "}}")


def _task_seconds(graph: Any, key: str) -> float:
    """Wall-clock seconds of one task's nodes in the run (first start to last end)."""
    spans = [(r.started_at, r.started_at + r.duration_ms / 1000) for r in graph.records()
             if r.started_at is not None and r.node_id.startswith(key + ".")]
    if not spans:
        return 0.0
    return max(end for _, end in spans) - min(start for start, _ in spans)


def run_crew_test(crew: Any, n_iterations: int, eval_llm: Any, inputs: dict[str, Any] | None = None) -> CrewTestResult:
    """Run ``crew`` ``n_iterations`` times, score every task, print the table, return the scores."""
    if isinstance(n_iterations, bool) or not isinstance(n_iterations, int) or n_iterations < 1:
        raise ValueError(f"n_iterations must be a positive integer, got {n_iterations!r}")
    try:
        evaluator = CrewEvaluator(crew, eval_llm)
        crewgraph_event_bus.emit(crew, CrewTestStartedEvent(crew_name=crew.name, n_iterations=n_iterations,
                                                            eval_llm=evaluator.llm, inputs=inputs))
        for iteration in range(1, n_iterations + 1):
            evaluator.set_iteration(iteration)
            evaluator.evaluate_run(crew.kickoff(inputs=inputs))
        evaluator.print_crew_evaluation_result()
        crewgraph_event_bus.emit(crew, CrewTestCompletedEvent(crew_name=crew.name))
        return evaluator.result()
    except Exception as exc:
        crewgraph_event_bus.emit(crew, CrewTestFailedEvent(crew_name=crew.name, error=str(exc)))
        raise
