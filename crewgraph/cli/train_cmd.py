"""``crewgraph train``, ``crewgraph test`` and ``crewgraph log-tasks-outputs`` (CrewAI's commands).

``train`` and ``test`` run ``Crew.train`` / ``Crew.test`` on the crew a target names (the
project in the current folder by default), with CrewAI's options and defaults:
``train -n 5 -f trained_agents_data.pkl`` and ``test -n 3 -m gpt-4o-mini``. During training
each task's answer is shown on the terminal for feedback (Enter accepts it).
``log-tasks-outputs`` lists the task outputs of a crew's latest checkpointed kickoff, with
the task ids ``replay -t`` takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._inputs import parse_inputs
from crewgraph.cli._llm import apply_llm, demo_llm
from crewgraph.cli._options import DbOpt, InputsOpt, JsonOpt, LlmOpt, QuietOpt, TargetArg
from crewgraph.cli._target import Target, load_target

__all__ = ["log_tasks_outputs", "test", "train"]

_ITERATIONS_HELP = "Number of iterations to {} the crew."


def _crew(target: str | None) -> Target:
    found = load_target(target)
    if found.kind != "crew":
        raise UserError(f"this command works on crews; {found.label} is a {found.kind}")
    return found


@guarded
def train(
    n_iterations: Annotated[int, typer.Option("--n_iterations", "-n", "--n-iterations", min=1,
                                              help=_ITERATIONS_HELP.format("train"))] = 5,
    filename: Annotated[str, typer.Option("--filename", "-f", help="Where to save what the agents learnt (.pkl).")]
    = "trained_agents_data.pkl",
    target: TargetArg = None,
    inputs: InputsOpt = None,
    llm: LlmOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Train the crew: run it N times, reviewing every task's answer on the terminal.

    Your feedback makes the agent revise its answer; at the end each agent's model turns
    the feedback into suggestions saved under the agent's role in FILENAME. Kickoffs in
    this folder then follow the suggestions in trained_agents_data.pkl.
    """
    if not filename.endswith(".pkl"):
        raise UserError(f"the training file must end with .pkl, got {filename!r}")

    def prepare(crew: Any) -> None:
        apply_llm(Target(obj=crew, kind="crew", label=crew.name or "crew"), llm)
        crew.checkpoint = None  # reviews are answered live; a training run is not resumed
        if crew.input_provider is None:
            from crewgraph.cli._kickoff import TerminalFeedback

            crew.input_provider = TerminalFeedback()  # the review on stderr, so stdout stays clean

    def run(crew: Any, data: dict[str, Any]) -> None:
        crew.train(n_iterations=n_iterations, filename=filename, inputs=data)

    _in_project(target, "train", (str(n_iterations), filename), inputs, prepare, run,
                f"Training for {n_iterations} iteration(s)", quiet=quiet)
    if not quiet:
        typer.echo(f"Training complete: {filename}", err=True)


@guarded
def test(
    n_iterations: Annotated[int, typer.Option("--n_iterations", "-n", "--n-iterations", min=1,
                                              help=_ITERATIONS_HELP.format("test"))] = 3,
    model: Annotated[str, typer.Option("--model", "-m", help="The model that scores the tasks ('fake': offline).")]
    = "gpt-4o-mini",
    target: TargetArg = None,
    inputs: InputsOpt = None,
    llm: LlmOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Test the crew: run it N times and have MODEL score every task 1-10 (a table at the end)."""
    import contextlib
    import sys

    eval_llm: Any = demo_llm() if model.strip().lower() == "fake" else model
    results: list[Any] = []

    def prepare(crew: Any) -> None:
        apply_llm(Target(obj=crew, kind="crew", label=crew.name or "crew"), llm)

    def run(crew: Any, data: dict[str, Any]) -> None:
        results.append(crew.test(n_iterations=n_iterations, eval_llm=eval_llm, inputs=data))

    # with --json, stdout holds only the JSON: the table goes to stderr
    table_to = contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext()
    with table_to:
        _in_project(target, "test", (str(n_iterations), model), inputs, prepare, run,
                    f"Testing for {n_iterations} iteration(s) with {model}", results, quiet=quiet)
    if as_json and results:
        import json

        result = results[-1]
        typer.echo(json.dumps({**result.model_dump(), "crew_scores": result.crew_scores,
                               "crew_average": result.crew_average}, indent=2))


def _in_project(
    target: str | None, script: str, args: tuple[str, str], inputs: list[str] | None,
    prepare: Callable[[Any], None], run: Callable[[Any, dict[str, Any]], None], what: str,
    results: list[Any] | None = None, *, quiet: bool = False,
) -> None:
    """Run ``run(crew, inputs)`` on the crew the command means (see the module docstring);
    ``quiet`` leaves out the line saying which crew runs."""

    def say(line: str) -> None:
        if not quiet:
            typer.echo(line, err=True)

    from pathlib import Path

    from crewgraph.cli._project_entry import argv, each_crew, project_crew, project_function
    from crewgraph.cli._target import names_target, prepare_project

    overrides = parse_inputs(inputs)
    try:
        if target is None:
            cwd = Path.cwd().resolve()
            if not names_target(prepare_project(cwd)):
                found_fn = project_function(cwd, script)
                if found_fn is not None:  # CrewAI's main.py train()/test(): they read sys.argv
                    func, source = found_fn
                    say(f"{what}: {source}")
                    with argv(script, *args), each_crew(prepare, overrides, results if results is not None else []):
                        func()
                    return
                captured = project_crew(cwd)
                if captured is not None:
                    prepare(captured.crew)
                    say(f"{what}: the crew {captured.source} kicks off")
                    run(captured.crew, {**captured.inputs, **overrides})
                    return
        found = _crew(target)
        prepare(found.obj)
        say(f"{what}: crew {found.name!r}")
        run(found.obj, {**found.default_inputs, **overrides})
    except ValueError as exc:
        raise UserError(f"{script} failed: {exc}") from exc


@guarded
def log_tasks_outputs(
    target: TargetArg = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Show the task outputs of the crew's latest kickoff (checkpointed), with their task ids."""
    from crewgraph.cli._kickoff import configure_checkpoint
    from crewgraph.runner.replay import TASK_IDS_META_KEY

    found = _crew(target)
    config = configure_checkpoint(found, True, db)
    if not config.store_exists():
        raise UserError(f"no checkpoint database at {config.where}; run the crew first with `crewgraph run`")
    graph = found.obj.compile()
    with config.open_store() as store:
        latest = store.latest_run(name=graph.name)
        if latest is None:
            raise UserError(f"no kickoff of {graph.name!r} recorded in {config.where}; run it first")
        outputs = store.completed(latest.run_id)
    ids = latest.meta.get(TASK_IDS_META_KEY) or []
    rows: list[dict[str, Any]] = []
    for n, plan in enumerate(graph.meta.get("tasks", [])):
        task = found.obj.tasks[plan["index"]]
        out = outputs.get(plan["final"])
        rows.append({
            "task_index": n + 1,
            "task_id": ids[n] if n < len(ids) else "",
            "name": plan["name"],
            "description": task.description,
            "expected_output": task.expected_output,
            "output": getattr(out, "raw", None),
        })
    if as_json:
        import json

        typer.echo(json.dumps({"run_id": latest.run_id, "tasks": rows}, indent=2))
        return
    if not quiet:
        typer.echo(f"Run {latest.run_id} ({latest.status})")
    for row in rows:
        typer.echo(f"Task {row['task_index']}: {row['task_id']}")
        typer.echo(f"Name: {row['name']}")
        typer.echo(f"Description: {row['description']}")
        typer.echo(f"Output: {row['output'] if row['output'] is not None else '(not finished)'}")
        typer.echo("------")
