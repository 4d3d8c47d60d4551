"""``Crew.replay(task_id)``: re-run a crew from one task of its last kickoff, reusing the
outputs of the tasks before it (CrewAI's replay, on crewgraph's checkpoint store).

The outputs come from where crewgraph already keeps them, so nothing is recorded twice:

- a checkpointed crew (``checkpoint=True``, or a ``CheckpointConfig``): its latest run in
  the store, in this or any later process. The run is forked without the nodes to re-run
  (the task, every later task and everything downstream), and the fork is resumed, so the
  original run stays as it was;
- otherwise: the last kickoff of this crew object in this process (its executed run).

``task_id`` is a task's ``id`` (the current tasks', or -- for a checkpointed run -- the ids
its tasks had when it ran, as ``crewgraph log-tasks-outputs`` lists them), its key
(``t2_write``), its name, or its 1-based position.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any

from crewgraph.runner.plan import compile_plan

if TYPE_CHECKING:
    from crewgraph.outputs import CrewOutput
    from crewgraph.spec.crew import CrewSpec

__all__ = ["TASK_IDS_META_KEY", "ReplayError", "nodes_to_rerun", "pick_task", "replay_crew", "task_ids"]

TASK_IDS_META_KEY = "task_ids"
"""Run-meta key: the ``str(task.id)`` of each planned task, in plan order, when the run started."""


class ReplayError(ValueError):
    """The task to replay from, or the run to replay, cannot be found (says which and why)."""


def task_ids(crew: Any, graph: Any) -> list[str]:
    """The ids of ``crew``'s planned tasks, in plan order (what a run records for replay)."""
    return [str(crew.tasks[p["index"]].id) for p in graph.meta.get("tasks", [])]


def pick_task(plans: list[dict[str, Any]], wanted: str, *id_lists: list[str]) -> dict[str, Any]:
    """The plan of the task ``wanted`` names: an id from one of ``id_lists`` (each in plan
    order), a key, a name or a 1-based position."""
    wanted = str(wanted).strip()
    for ids in id_lists:
        if wanted in ids and len(ids) == len(plans):
            return plans[ids.index(wanted)]
    for plan in plans:
        if wanted in (plan["key"], plan["name"]):
            return plan
    if wanted.isdigit() and 1 <= int(wanted) <= len(plans):
        return plans[int(wanted) - 1]
    known = ", ".join(f"{p['index'] + 1}={p['name']}" for p in plans)
    close = difflib.get_close_matches(wanted, [p["name"] for p in plans] + [p["key"] for p in plans], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ReplayError(f"Task with id {wanted!r} not found in the crew's tasks{hint}; this crew's tasks: {known}")


def nodes_to_rerun(graph: Any, plans: list[dict[str, Any]], start: dict[str, Any]) -> set[str]:
    """The task's nodes, every later task's nodes, and everything downstream of them."""
    prefixes = tuple(p["key"] + "." for p in plans if p["index"] >= start["index"])
    todo = [nid for nid in graph.digraph.nodes if nid.startswith(prefixes)]
    seen = set(todo)
    while todo:
        for succ in graph.execution_successors(todo.pop()):
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return seen


async def replay_crew(crew: CrewSpec, task_id: str, inputs: dict[str, Any] | None = None) -> CrewOutput:
    """Re-run ``crew`` from ``task_id`` (see the module docstring)."""
    from crewgraph.checkpoint.setup import coerce_config

    config = coerce_config(crew.checkpoint)
    if config is not None:
        return await _replay_checkpointed(crew, config, task_id, inputs)
    return await _replay_last_kickoff(crew, task_id, inputs)


async def _replay_checkpointed(crew: CrewSpec, config: Any, task_id: str, inputs: dict[str, Any] | None) -> CrewOutput:
    from crewgraph.checkpoint.setup import owner_name
    from crewgraph.runner import run_crew

    name = owner_name(crew)
    if not config.store_exists():
        raise ReplayError(f"no kickoff of crew {name!r} to replay: {config.where} does not exist yet")
    with config.open_store() as store:
        source = store.latest_run(name=name)
        if source is None:
            raise ReplayError(f"no kickoff of crew {name!r} to replay in {config.where}; kick it off first")
        stored = source.meta.get("inputs")
        data = dict(inputs) if inputs is not None else dict(stored) if isinstance(stored, dict) else {}
        graph = compile_plan(crew, data or None)
        plans = list(graph.meta.get("tasks", []))
        recorded = source.meta.get(TASK_IDS_META_KEY)
        start = pick_task(plans, task_id, task_ids(crew, graph), list(recorded) if isinstance(recorded, list) else [])
        forked = store.fork(source.run_id, branch=f"replay:{start['name']}",
                            exclude=nodes_to_rerun(graph, plans, start))
    return await run_crew(crew, data, from_checkpoint=forked)


async def _replay_last_kickoff(crew: CrewSpec, task_id: str, inputs: dict[str, Any] | None) -> CrewOutput:
    from crewgraph.checkpoint.setup import ResolvedCheckpoint
    from crewgraph.runner import run_crew

    last = crew._last_run
    if last is None:
        raise ReplayError(
            f"Task with id {task_id} not found in the crew's tasks: crew {crew.name!r} has no kickoff to replay "
            "in this process. Kick it off first, or turn on checkpoint=True to replay runs of earlier processes."
        )
    data = dict(inputs) if inputs is not None else dict(crew._last_inputs or {})
    graph = compile_plan(crew, data or None)
    plans = list(graph.meta.get("tasks", []))
    start = pick_task(plans, task_id, task_ids(crew, graph))
    rerun = nodes_to_rerun(graph, plans, start)
    restored = {nid: out for nid, out in last.outputs.items() if nid in graph and nid not in rerun}
    return await run_crew(crew, data, from_checkpoint=ResolvedCheckpoint(restored=restored, inputs=data))
