"""Resuming a crew from its checkpoints: the plan fingerprint, its check, rebuilding crews.

Checkpoints store *node outputs*, never pickled crews: the definition is
code, and code is what the user re-runs. So resuming means "rebuild the same
crew, then hand the scheduler the outputs already computed". That only makes
sense if the crew really is the same, which is why a checkpointed crew run
records a *plan fingerprint* (the executable node ids, a hash of each task's
definition and the kickoff inputs) and a resume compares it before restoring
anything: a changed crew gets a :class:`CheckpointError` naming what differs
instead of silently mixing old outputs into a new plan. Only changes that
make a restored output wrong are refused (the node set; the definition of, or
an input used by, a task that finished); a resume may change tasks that never
finished, and inputs it does not pass are taken from the run.

With ``from_checkpoint=True`` (or a config without ``run_id``) a crew resumes
its latest unfinished run with the same name *and* plan, or starts a new run
if there is none, so one script works for the first run and for every restart.

This is the runner's part of checkpointing: it compiles plans, so it sits
above ``crewgraph.checkpoint`` (the store and run ids), which it calls. The
crew is a :class:`~crewgraph.spec.crew.CrewSpec`; the facade class to rebuild
is passed in by ``Crew.from_checkpoint``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from crewgraph.checkpoint._events import restore_outputs
from crewgraph.checkpoint.config import CheckpointConfig
from crewgraph.checkpoint.setup import (
    FACTORY_META_KEY,
    PLAN_META_KEY,
    ResolvedCheckpoint,
    check_owner,
    coerce_config,
    fork_run,
    lease_run,
    owner_name,
    resume_request,
    run_info,
)
from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore
from crewgraph.errors import CheckpointError
from crewgraph.ids import new_run_id
from crewgraph.runner.plan import compile_plan

if TYPE_CHECKING:
    from crewgraph.spec.crew import CrewSpec

__all__ = ["crew_from_checkpoint", "fork_crew", "plan_fingerprint", "resolve_crew_checkpoint"]

logger = logging.getLogger("crewgraph.checkpoint")

C = TypeVar("C", bound="CrewSpec")

_UNFINISHED = ("running", "failed", "cancelled", "forked", "paused")
"""Statuses ``from_checkpoint=True`` resumes (a paused run waits for a review: it pauses again
until ``crew.resume(run_id, answer)`` gives one, rather than a second run starting)."""
_TASK_FIELDS = ("description", "expected_output", "agent", "output")


def resolve_crew_checkpoint(
    crew: CrewSpec, from_checkpoint: Any = None, *, inputs: dict[str, Any] | None = None
) -> ResolvedCheckpoint:
    """Open the store, pick the run (new or resumed), check the plan, load finished outputs.

    - No checkpointing asked for: nothing (``store`` None).
    - A new checkpointed run: the store and a new run id whose run is already
      started with the plan fingerprint in its meta.
    - A resume: the store, the run id and ``{node_id: output}`` of the nodes done.
    Raises :class:`CheckpointError` when the run is unknown, belongs to another
    crew, or the crew changed in a way that makes the saved outputs wrong.
    """
    inputs = dict(inputs or {})
    own = coerce_config(crew.checkpoint)
    request, latest = resume_request(from_checkpoint, own)
    config = request or own
    if config is None:
        return ResolvedCheckpoint(inputs=inputs)
    store = config.open_store()
    leased: list[ResolvedCheckpoint] = []
    try:
        resolved = _resolve_crew(crew, store, request, latest, inputs, config, leased)
    except BaseException:
        for partial in leased:
            partial.release()
        store.close()
        raise
    return resolved


def _resolve_crew(
    crew: CrewSpec,
    store: SQLiteCheckpointStore,
    request: CheckpointConfig | None,
    latest: bool,
    inputs: dict[str, Any],
    config: CheckpointConfig,
    leased: list[ResolvedCheckpoint],
) -> ResolvedCheckpoint:
    name = owner_name(crew)
    run_id = request.run_id if request is not None else None
    held: tuple[Any, bool] | None = None
    if request is not None and request.run_key is not None:  # the caller's key names the run
        from crewgraph.checkpoint.batch_store import input_fingerprint
        from crewgraph.checkpoint.location import location_of
        from crewgraph.checkpoint.run_keys import claim_run_key

        run_id = claim_run_key(location_of(store), f"crew:{name}", request.run_key, new_run_id(), input_fingerprint(inputs))
        # Own it before looking: of two processes given the key at once, one creates the run.
        held = lease_run(store, run_id, config, what=f"crew run {run_id!r} of {name!r} (run_key {request.run_key!r})")
        leased.append(ResolvedCheckpoint(lease=held[0], owns_lease=held[1]))
        if not store.has_run(run_id):
            return _new_run(crew, store, name, inputs, config, leased, run_id=run_id, held=held)
        latest = False
    if latest:
        run_id = _latest_matching(crew, store, name, inputs)
        if run_id is None:
            logger.info("no unfinished run of crew %r to resume; starting a new run", name)
    if run_id is None:
        return _new_run(crew, store, name, inputs, config, leased)
    info = store.get_run(run_id)  # CheckpointError listing recent run ids if unknown
    check_owner(info, name)
    if request is not None and request.branch is not None:
        run_id = store.fork(run_id, request.branch)
    # Own the run before reading what it finished: another process may be running it now.
    lease, owns = held or lease_run(store, run_id, config, what=f"crew run {run_id!r} of {name!r}")
    if held is None:
        leased.append(ResolvedCheckpoint(lease=lease, owns_lease=owns))
    stored = store.load_meta(run_id).get(PLAN_META_KEY)
    inputs = {**((stored or {}).get("inputs") or {}), **inputs}  # given inputs override the run's
    graph = compile_plan(crew, inputs)
    fingerprint = plan_fingerprint(crew, graph, inputs)
    restored = {k: v for k, v in restore_outputs(store, run_id).items() if k in graph}
    if stored is not None:
        _check_plan(run_id, stored, fingerprint, restored, _placeholders(crew, graph))
    elif restored:
        logger.warning("run %r has no plan fingerprint; resuming without checking the plan", run_id)
    store.update_meta(run_id, {PLAN_META_KEY: fingerprint, **_factory_meta(crew)})
    return ResolvedCheckpoint(store, run_id, restored, inputs, resumed=True, lease=lease, owns_lease=owns)


DEMO_META_KEY = "demo_model"


def _on_demo_model(crew: Any) -> bool:
    """Whether the run answers on the demo model (``--llm fake``): every call goes to it
    (crewgraph.llm.override), or every agent has it."""
    from crewgraph.llm.override import model_override

    def demo(llm: object) -> bool:
        return getattr(llm, "demo_model", False) is True

    if demo(model_override()):
        return True
    agents = list(getattr(crew, "agents", None) or [])
    return bool(agents) and all(demo(getattr(a, "llm", None)) for a in agents)


def _new_run(crew: CrewSpec, store: SQLiteCheckpointStore, name: str, inputs: dict[str, Any],
             config: CheckpointConfig, leased: list[ResolvedCheckpoint], run_id: str | None = None,
             held: tuple[Any, bool] | None = None) -> ResolvedCheckpoint:
    graph = compile_plan(crew, inputs)
    run_id = run_id or new_run_id()
    lease, owns = held or lease_run(store, run_id, config, what=f"crew run {run_id!r} of {name!r}")
    if held is None:
        leased.append(ResolvedCheckpoint(lease=lease, owns_lease=owns))
    from crewgraph.runner.replay import TASK_IDS_META_KEY, task_ids

    meta = {PLAN_META_KEY: plan_fingerprint(crew, graph, inputs), **_factory_meta(crew),
            TASK_IDS_META_KEY: task_ids(crew, graph)}  # what Crew.replay / log-tasks-outputs name tasks by
    if _on_demo_model(crew):
        meta[DEMO_META_KEY] = True  # the UI marks the run: its answers are the demo model's
    store.start_run(run_id, name=name, meta=meta)
    return ResolvedCheckpoint(store=store, run_id=run_id, inputs=inputs, lease=lease, owns_lease=owns)


def _latest_matching(
    crew: CrewSpec, store: SQLiteCheckpointStore, name: str, inputs: dict[str, Any]
) -> str | None:
    """The newest unfinished run of this crew whose plan matches (other crews may share the name)."""
    candidates = [r for r in store.list_runs(name=name, limit=None) if r.status in _UNFINISHED]
    if not candidates:
        return None
    nodes = _node_ids(compile_plan(crew, inputs or None))
    for run in candidates:
        stored = run.meta.get(PLAN_META_KEY) or {}
        saved = stored.get("inputs") or {}
        if stored.get("nodes") == nodes and all(saved.get(k) == v for k, v in _jsonable(inputs).items()):
            return run.run_id
    return None


# ---------------------------------------------------------------------- the plan fingerprint
def plan_fingerprint(crew: Any, graph: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """JSON facts that must match for a checkpoint to be resumable by this crew.

    ``nodes``: executable node ids (the scheduler restores by id). ``tasks``:
    per task key, a short hash of each definition field, so a resume can say
    *which* field of *which* task changed. ``inputs``: the kickoff inputs.
    """
    tasks: dict[str, dict[str, str]] = {}
    for plan in graph.meta.get("tasks", []):
        task = crew.tasks[plan["index"]]
        model = task.structured_model
        values = {
            "description": task.description,
            "expected_output": task.expected_output,
            "agent": task.agent.role if task.agent is not None else "",
            "output": model.__name__ if model is not None else "",
        }
        tasks[plan["key"]] = {k: _digest(values[k]) for k in _TASK_FIELDS}
    return {"nodes": _node_ids(graph), "tasks": tasks, "inputs": _jsonable(inputs)}


def _check_plan(
    run_id: str,
    stored: dict[str, Any],
    current: dict[str, Any],
    restored: dict[str, Any],
    uses: dict[str, set[str]],
) -> None:
    """Raise CheckpointError naming what differs between the checkpointed and the current crew.

    Only differences that make a *restored* output wrong count: a changed node set,
    or a finished task whose definition, or an input it uses, changed. Changing a
    task that never finished is simply running its new version.
    """
    problems: list[str] = []
    old_nodes, new_nodes = set(stored.get("nodes") or []), set(current["nodes"])
    if old_nodes != new_nodes:
        added, removed = sorted(new_nodes - old_nodes), sorted(old_nodes - new_nodes)
        if added:
            problems.append(f"nodes not in the checkpointed run: {', '.join(added)}")
        if removed:
            problems.append(f"checkpointed nodes missing from this crew: {', '.join(removed)}")
    old_tasks: dict[str, dict[str, str]] = stored.get("tasks") or {}
    for key, fields in current["tasks"].items():
        before = old_tasks.get(key)
        if before is None or before == fields:
            continue
        if not any(nid.startswith(key + ".") for nid in restored):
            continue  # the task never finished: running its new definition is what the user wants
        changed = [f for f in _TASK_FIELDS if before.get(f) != fields.get(f)]
        problems.append(f"task {key!r} finished in the checkpoint but its {', '.join(changed)} changed")
    old_inputs, new_inputs = stored.get("inputs") or {}, current["inputs"]
    changed_inputs = {k for k in set(old_inputs) | set(new_inputs) if old_inputs.get(k) != new_inputs.get(k)}
    for key, names in uses.items():
        hit = sorted(names & changed_inputs)
        if hit and any(nid.startswith(key + ".") for nid in restored):
            values = ", ".join(f"{n}={old_inputs.get(n)!r} -> {new_inputs.get(n)!r}" for n in hit)
            problems.append(f"task {key!r} finished in the checkpoint with other inputs ({values})")
    if problems:
        raise CheckpointError(
            f"cannot resume run {run_id!r}: the crew differs from the one that was checkpointed:\n"
            + "\n".join(f"  - {p}" for p in problems)
            + "\nResume with the same crew definition, fork the run to re-run changed tasks, "
            "or start a new run (kickoff without from_checkpoint)."
        )


def _placeholders(crew: Any, graph: Any) -> dict[str, set[str]]:
    """Per task key, the ``{inputs}`` its task and agent texts use."""
    from crewgraph._internal.interpolate import placeholder_names

    uses: dict[str, set[str]] = {}
    for plan in graph.meta.get("tasks", []):
        task = crew.tasks[plan["index"]]
        names = set(task.placeholders())
        if task.agent is not None:
            for text in (task.agent.role, task.agent.goal, task.agent.backstory):
                names |= placeholder_names(text or "")
        uses[plan["key"]] = names
    return uses


def _node_ids(graph: Any) -> list[str]:
    return sorted(nid for nid, data in graph.digraph.nodes(data=True) if not data["node"].plan_only)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _jsonable(value: dict[str, Any]) -> dict[str, Any]:
    """The inputs as the store keeps them (JSON round trip; non-JSON values as their repr)."""
    loaded = json.loads(json.dumps(value, default=repr, sort_keys=True))
    return loaded if isinstance(loaded, dict) else {}


# ---------------------------------------------------------------------- rebuilding crews

def _factory_meta(crew: Any) -> dict[str, Any]:
    ref = getattr(crew, "_factory_ref", None)
    return {FACTORY_META_KEY: ref} if isinstance(ref, str) and ref else {}


def _load_factory(ref: Any) -> tuple[Any, str | None]:
    """(the crew or a callable building it, the ``module:attr`` text when ``ref`` was one)."""
    if not isinstance(ref, str):
        return ref, None
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise CheckpointError(f"crew factory {ref!r} must look like 'package.module:attribute'")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise CheckpointError(f"cannot import crew factory {ref!r}: {exc}") from exc
    return target, ref


def _build_crew(cls: type[C], factory: Any) -> C:
    obj, ref = _load_factory(factory)
    crew: Any = obj if isinstance(obj, cls) else (obj() if callable(obj) else None)
    if not isinstance(crew, cls):
        builder = _crew_method(crew)
        if builder is not None:
            crew = builder()  # a @CrewBase class: its instance builds the crew
    if not isinstance(crew, cls):
        got = crew if crew is not None else obj
        raise CheckpointError(
            f"crew factory {factory!r} must be a {cls.__name__} or a callable returning one, "
            f"got {type(got).__name__}"
        )
    if ref is not None:
        crew._factory_ref = ref
    return crew


def _crew_method(instance: Any) -> Callable[[], Any] | None:
    """The bound ``@crew`` method of a @CrewBase instance (marked ``is_crew``, whatever its
    name), else a method named ``crew``; duck-typed, since the runner does not import the project."""
    if instance is None or isinstance(instance, type):
        return None
    for name in dir(type(instance)):
        if getattr(getattr(type(instance), name, None), "is_crew", False) is True:
            method: Callable[[], Any] = getattr(instance, name)
            return method
    fallback = getattr(instance, "crew", None)
    return fallback if callable(fallback) else None


def crew_from_checkpoint(
    cls: type[C], config: CheckpointConfig, *, factory: str | Callable[[], Any] | Any = None
) -> C:
    """``Crew.from_checkpoint``: rebuild the crew, bound to resume ``config.run_id`` on kickoff.

    The crew comes from ``factory`` (a Crew, a callable returning one, a
    ``@CrewBase`` class, or a ``"module:attr"`` reference to any of these) or else
    from the factory reference the run recorded when it started (``crew._factory_ref``). Without either
    there is no way to rebuild it, and the error says what to do instead.
    """
    config = _store_config(config)
    if not isinstance(config, CheckpointConfig):
        raise CheckpointError(f"from_checkpoint needs a CheckpointConfig, got {type(config).__name__}")
    if config.run_id is None:
        raise CheckpointError(
            "Crew.from_checkpoint needs the run to resume: CheckpointConfig(restore_from=RUN_ID) "
            "(crewgraph.state) or CheckpointConfig(run_id=...) (crewgraph.checkpoint)"
        )
    info = run_info(config)
    ref = factory if factory is not None else info.meta.get(FACTORY_META_KEY)
    if ref is None:
        raise CheckpointError(
            f"cannot rebuild the crew of run {config.run_id!r}: checkpoints store node outputs, not "
            "crew definitions, and this run recorded no crew factory. Build the crew as you did "
            f"originally and call crew.kickoff(from_checkpoint={config.run_id!r}), or pass "
            "factory='package.module:build_crew' (a Crew or a function returning one)."
        )
    crew = _build_crew(cls, ref)
    bound = config.model_copy(update={"enabled": True, "branch": None})
    copy = crew.model_copy(update={"checkpoint": bound})
    copy._factory_ref = crew._factory_ref
    return copy


def _store_config(config: Any) -> Any:
    """crewgraph's store settings for CrewAI's CheckpointConfig (``crewgraph.state``)."""
    convert = getattr(config, "to_store_config", None)
    return convert() if callable(convert) else config


def fork_crew(
    cls: type[C],
    config: CheckpointConfig,
    branch: str | None = None,
    *,
    factory: Any = None,
    exclude: Iterable[str] = (),
) -> C:
    """``Crew.fork``: copy the run's finished outputs under a new run id (``branch`` as its
    label) and return the crew bound to resume that fork; the original run is untouched."""
    config = _store_config(config)
    if config.crewai is not None:  # CrewAI's config: the fork's checkpoints go on the new branch
        config = config.model_copy(update={"crewai": config.crewai.forked(branch)})
    new_id = fork_run(config, branch, exclude=exclude)
    return crew_from_checkpoint(cls, config.model_copy(update={"run_id": new_id}), factory=factory)
