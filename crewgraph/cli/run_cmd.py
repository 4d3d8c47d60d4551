"""``crewgraph run`` and ``crewgraph replay``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from crewgraph.cli._batch_run import (
    BatchHooks,
    BatchOpt,
    ConcurrencyOpt,
    RayOpt,
    batch_inputs,
    make_ray_executor,
    print_batch,
    run_batch_target,
    single_run,
)
from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._inputs import parse_inputs
from crewgraph.cli._kickoff import configure_checkpoint, print_result, run_target
from crewgraph.cli._llm import apply_llm, llm_scope
from crewgraph.cli._options import (
    CheckpointOpt,
    DbOpt,
    InputsOpt,
    JsonOpt,
    LlmOpt,
    QuietOpt,
    TargetArg,
)
from crewgraph.cli._target import load_target, names_target, prepare_project

__all__ = ["kick_project", "replay", "run"]


@guarded
def run(
    target: TargetArg = None,
    inputs: InputsOpt = None,
    quiet: QuietOpt = False,
    llm: LlmOpt = None,
    checkpoint: CheckpointOpt = True,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    ray: RayOpt = None,
    batch: BatchOpt = None,
    max_concurrency: ConcurrencyOpt = None,
    run_key: Annotated[
        str | None,
        typer.Option("--run-key", help="Your name for this run: re-issued after a crash it resumes the unfinished "
                                       "run or prints the finished one's output, re-running nothing."),
    ] = None,
) -> None:
    """Run a crew or flow and print its result.

    Without MODULE:ATTR, runs the project in the current folder as `crewai run` does:
    the function of its run_crew (or, for a flow, kickoff) script in pyproject.toml, else
    run() (kickoff()) in src/<pkg>/main.py, with the inputs it passes; -i overrides them.
    With crew = "pkg.crew:MyCrew" (or flow = ...) in [tool.crewgraph], that object is run
    with the inputs of [tool.crewgraph.inputs]. The project's .env is read first.
    A list of inputs ([[tool.crewgraph.inputs]] or --batch FILE), or a kickoff_for_each in the
    project's run(), runs as a batch with one progress line; --ray ADDRESS runs on Ray.
    """
    if run_key is not None and not checkpoint:
        raise UserError("--run-key needs checkpoints (the key names a checkpointed run); drop --no-checkpoint")
    from crewgraph._internal.run_context import run_key_scope

    with run_key_scope(run_key):  # every kickoff this command makes carries the key
        kick_project(target, inputs, quiet=quiet, llm=llm, checkpoint=checkpoint, db=db, as_json=as_json,
                     ray=ray, batch=batch, max_concurrency=max_concurrency)


def kick_project(
    target: str | None, inputs: list[str] | None, *, quiet: bool, llm: str | None, checkpoint: bool,
    db: str | None, as_json: bool, prefer: str | None = None, ray: str | None = None,
    batch: Path | None = None, max_concurrency: int | None = None,
) -> None:
    """``crewgraph run`` and ``crewgraph flow kickoff``: run, then print the result.

    Every model call made meanwhile (the script's own too) goes to ``llm`` when given."""
    with llm_scope(llm):
        _kick_project(target, inputs, quiet=quiet, llm=llm, checkpoint=checkpoint, db=db, as_json=as_json,
                      prefer=prefer, ray=ray, batch=batch, max_concurrency=max_concurrency)


def _kick_project(
    target: str | None, inputs: list[str] | None, *, quiet: bool, llm: str | None, checkpoint: bool,
    db: str | None, as_json: bool, prefer: str | None, ray: str | None,
    batch: Path | None, max_concurrency: int | None,
) -> None:
    from crewgraph.cli._entry import KickoffSession, call_entry, find_entry, load_entry

    cwd = Path.cwd().resolve()
    executor = make_ray_executor(ray) if ray is not None else None
    if target is None and batch is None:
        settings = prepare_project(cwd)
        entry = None if names_target(settings) else find_entry(cwd, settings, prefer)
        if entry is not None:
            func = load_entry(entry, cwd)
            session = KickoffSession(entry.spec, parse_inputs(inputs), llm, checkpoint, db, quiet)
            hooks = BatchHooks(session, executor=executor, max_concurrency=max_concurrency)
            with hooks.active():
                result = call_entry(func, session)
            if hooks.outputs is not None and not session.results:
                print_batch(hooks.outputs, as_json)
                return
            if result is None and not session.results:
                raise UserError(f"{entry.spec} ({entry.source}) returned without kicking off a crew or flow")
            print_result(session.results[-1], as_json)
            return
    found = load_target(target)
    batch_list = batch_inputs(batch, found, inputs)
    if batch_list is not None:
        apply_llm(found, llm)
        configure_checkpoint(found, checkpoint, db)
        run_batch_target(found, batch_list, executor=executor, max_concurrency=max_concurrency, quiet=quiet,
                         as_json=as_json)
        return
    data = parse_inputs(inputs, found.default_inputs)
    if found.kind == "crew":
        apply_llm(found, llm)  # before the checkpoint set-up, which may build the crew's memory
    session = KickoffSession(found.label, data, llm, checkpoint, db, quiet, drain_streams=True)
    print_result(call_entry(single_run(found, executor), session), as_json)


def _task_plans(graph: Any, label: str) -> list[dict[str, Any]]:
    plans = graph.meta.get("tasks")
    if not plans:
        raise UserError(f"{label}: its plan lists no tasks to replay from")
    return list(plans)


@guarded
def replay(
    task: Annotated[str, typer.Option("--task_id", "-t", "--task", "--task-id",
                                      help="Task to re-run from: its id (see log-tasks-outputs), name, key or position.")],
    target: TargetArg = None,
    run_id: Annotated[
        str | None, typer.Option("--run", help="The run to replay (default: the crew's latest run).")
    ] = None,
    inputs: InputsOpt = None,
    quiet: QuietOpt = False,
    llm: LlmOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-run a crew from one task of a checkpointed run, reusing the outputs before it.

    The run is forked (the original is left as it was): the task, every later
    task and everything that depends on them run again.
    """
    with llm_scope(llm):
        _replay(task, target, run_id, inputs, quiet, llm, db, as_json)


def _replay(task: str, target: str | None, run_id: str | None, inputs: list[str] | None, quiet: bool,
            llm: str | None, db: str | None, as_json: bool) -> None:
    from crewgraph.runner.replay import TASK_IDS_META_KEY, ReplayError, nodes_to_rerun, pick_task

    found = load_target(target)
    if found.kind != "crew":
        raise UserError(f"replay works on crews; {found.label} is a {found.kind}")
    config = configure_checkpoint(found, True, db)
    if not config.store_exists():
        raise UserError(f"no checkpoint database at {config.where}; run the crew first with `crewgraph run`")
    graph = found.obj.compile()
    plans = _task_plans(graph, found.label)
    with config.open_store() as store:
        if run_id is not None:
            run_id = store.resolve_run_id(run_id)
            source = store.get_run(run_id)
            if source.name != graph.name:  # checked before forking, so no orphan fork is left
                raise UserError(
                    f"run {run_id} was made by crew {source.name!r}, not {graph.name!r} "
                    f"({found.label}); replay it with the crew that made it"
                )
        else:
            latest = store.latest_run(name=graph.name)
            if latest is None:
                raise UserError(
                    f"no checkpointed run of {graph.name!r} in {config.where}; "
                    "run it first with `crewgraph run`"
                )
            source = latest
        recorded = source.meta.get(TASK_IDS_META_KEY)
        try:
            start = pick_task(plans, task, list(recorded) if isinstance(recorded, list) else [])
        except ReplayError as exc:
            raise UserError(str(exc)) from None
        forked = store.fork(source.run_id, branch=f"replay:{start['name']}", exclude=nodes_to_rerun(graph, plans, start))
    stored = source.meta.get("inputs")
    data = parse_inputs(inputs, stored if isinstance(stored, dict) else {})
    apply_llm(found, llm)
    if not quiet:
        from crewgraph.cli._kickoff import err_console

        err_console().print(
            f"[dim]replaying run {source.run_id} from task {start['name']!r} as run {forked}[/]"
        )
    result = run_target(found, data, quiet=quiet, from_checkpoint=forked)
    print_result(result, as_json)


def _show(path: Path) -> str:
    return str(path)
