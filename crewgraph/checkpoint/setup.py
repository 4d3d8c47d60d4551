"""Turning a facade's checkpoint settings into (store, run id, restored outputs).

``Crew.kickoff(from_checkpoint=...)`` and flows call :func:`resolve_checkpoint`
before building the scheduler. The owner is duck-typed (``.checkpoint`` and
``.name``; a crew also has ``.tasks`` and ``.compile``) so this layer-1
package never imports the facades above it.

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

``from_checkpoint`` accepts:

- ``None``: a new run (checkpointed when the owner's ``checkpoint`` is on),
  unless that config has ``run_id`` set (what :func:`crew_from_checkpoint`
  builds): then that run resumes.
- a run id string, or a :class:`CheckpointConfig` with ``run_id``: resume it
  (a config with ``branch`` first forks the run and resumes the fork).
- ``True`` (or a config without ``run_id``): for a crew, the latest unfinished
  run of this crew (same name *and* same plan), or a new run if there is none,
  so one script works for the first run and for every restart; for a flow, the
  latest run of its name.

A node that was running when the process died is not restored: it
re-executes from its start (its output was never saved).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from crewgraph.checkpoint.config import CheckpointConfig
from crewgraph.checkpoint.info import CheckpointInfo
from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore
from crewgraph.errors import CheckpointError
from crewgraph.ids import new_run_id

if TYPE_CHECKING:
    from crewgraph.crew import Crew

__all__ = [
    "FACTORY_META_KEY",
    "PLAN_META_KEY",
    "CheckpointOwner",
    "ResolvedCheckpoint",
    "crew_checkpoints",
    "crew_from_checkpoint",
    "crew_store_path",
    "fork_crew",
    "fork_run",
    "plan_fingerprint",
    "resolve_checkpoint",
]

logger = logging.getLogger("crewgraph.checkpoint")

PLAN_META_KEY = "resume"
"""Run-meta key holding the plan fingerprint (apart from the scheduler's own meta keys)."""
FACTORY_META_KEY = "crew_factory"
"""Run-meta key holding a ``module:attr`` reference that rebuilds the crew, when known."""

_UNFINISHED = ("running", "failed", "cancelled", "forked")
_TASK_FIELDS = ("description", "expected_output", "agent", "output")


class CheckpointOwner(Protocol):
    """What :func:`resolve_checkpoint` reads from a Crew or Flow."""

    name: str | None
    checkpoint: Any


@dataclass
class ResolvedCheckpoint:
    """What a kickoff needs: the store to write to, the run id (None: the caller picks a
    fresh one), outputs not to recompute, and the inputs to run with (a crew resume
    takes the inputs it is not given from the run). Unpacks as ``store, run_id, restored``."""

    store: SQLiteCheckpointStore | None = None
    run_id: str | None = None
    restored: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    resumed: bool = False

    def __iter__(self) -> Iterator[Any]:
        return iter((self.store, self.run_id, self.restored))


def resolve_checkpoint(
    owner: Any, from_checkpoint: Any = None, *, inputs: dict[str, Any] | None = None
) -> ResolvedCheckpoint:
    """Open the store, pick the run (new or resumed), check the plan, load finished outputs.

    - No checkpointing asked for: nothing (``store`` None).
    - A new checkpointed run: the store; for a crew also a new run id whose run is
      already started with the plan fingerprint in its meta.
    - A resume: the store, the run id and ``{node_id: output}`` of the nodes done.
    Raises :class:`CheckpointError` when the run is unknown, belongs to another
    crew, or the crew changed in a way that makes the saved outputs wrong.
    """
    inputs = dict(inputs or {})
    own = _coerce(getattr(owner, "checkpoint", None))
    request, latest = _resume_request(from_checkpoint, own)
    config = request or own
    if config is None:
        return ResolvedCheckpoint(inputs=inputs)
    store = config.open_store()
    try:
        if _is_crew(owner):
            return _resolve_crew(owner, store, request, latest, inputs)
        return _resolve_other(owner, store, request, inputs)
    except BaseException:
        store.close()
        raise


def _coerce(value: Any) -> CheckpointConfig | None:
    try:
        return CheckpointConfig.coerce(value)
    except TypeError as exc:
        raise CheckpointError(str(exc)) from None


def _owner_name(owner: Any) -> str:
    # Same rule as the compiler's ExecutionGraph name, which is what start_run records.
    return getattr(owner, "name", None) or "crew"


def _is_crew(owner: Any) -> bool:
    return hasattr(owner, "tasks") and callable(getattr(owner, "compile", None))


def _resume_request(
    from_checkpoint: Any, own: CheckpointConfig | None
) -> tuple[CheckpointConfig | None, bool]:
    """(the run the caller asked to resume or None for "no resume", whether "the latest")."""
    base = own or CheckpointConfig()
    if from_checkpoint is None or from_checkpoint is False:
        if own is not None and own.run_id:
            return own, False
        return None, False
    if isinstance(from_checkpoint, CheckpointConfig):
        return from_checkpoint, from_checkpoint.run_id is None
    if from_checkpoint is True:
        return base.model_copy(update={"run_id": None, "branch": None}), True
    if isinstance(from_checkpoint, str):
        if not from_checkpoint.strip():
            raise CheckpointError("from_checkpoint run id must not be empty")
        return base.model_copy(update={"run_id": from_checkpoint.strip(), "branch": None}), False
    raise CheckpointError(
        "from_checkpoint must be a CheckpointConfig, a run id, True (latest run) or None, "
        f"not {type(from_checkpoint).__name__}"
    )


# ---------------------------------------------------------------------- flows and other owners
def _resolve_other(
    owner: Any, store: SQLiteCheckpointStore, request: CheckpointConfig | None, inputs: dict[str, Any]
) -> ResolvedCheckpoint:
    if request is None:
        return ResolvedCheckpoint(store=store, inputs=inputs)
    name = _owner_name(owner)
    run_id = request.run_id
    if run_id is None:
        latest = store.latest_run(name=name)
        if latest is None:
            raise CheckpointError(
                f"no checkpointed run of {name!r} in {str(store.path)!r} to resume; "
                "run it once with checkpoint=True (or pass a run id)"
            )
        run_id = latest.run_id
    _check_name(store.get_run(run_id), name)
    if request.branch is not None:
        run_id = store.fork(run_id, request.branch)
    return ResolvedCheckpoint(store, run_id, store.completed(run_id), inputs, resumed=True)


def _check_name(info: CheckpointInfo, name: str) -> None:
    if info.name != name:
        raise CheckpointError(
            f"run {info.run_id!r} was made by {info.name!r}, not {name!r}; resuming it would "
            "restore another crew's outputs. Pick a run of this crew "
            "(`crewgraph checkpoints list`)."
        )


# ---------------------------------------------------------------------- crews
def _resolve_crew(
    crew: Crew,
    store: SQLiteCheckpointStore,
    request: CheckpointConfig | None,
    latest: bool,
    inputs: dict[str, Any],
) -> ResolvedCheckpoint:
    name = _owner_name(crew)
    run_id = request.run_id if request is not None else None
    if latest:
        run_id = _latest_matching(crew, store, name, inputs)
        if run_id is None:
            logger.info("no unfinished run of crew %r to resume; starting a new run", name)
    if run_id is None:
        return _new_run(crew, store, name, inputs)
    info = store.get_run(run_id)  # CheckpointError listing recent run ids if unknown
    _check_name(info, name)
    if request is not None and request.branch is not None:
        run_id = store.fork(run_id, request.branch)
    stored = store.load_meta(run_id).get(PLAN_META_KEY)
    inputs = {**((stored or {}).get("inputs") or {}), **inputs}  # given inputs override the run's
    graph = crew.compile(inputs)
    fingerprint = plan_fingerprint(crew, graph, inputs)
    restored = {k: v for k, v in store.completed(run_id).items() if k in graph}
    if stored is not None:
        _check_plan(run_id, stored, fingerprint, restored, _placeholders(crew, graph))
    elif restored:
        logger.warning("run %r has no plan fingerprint; resuming without checking the plan", run_id)
    store.update_meta(run_id, {PLAN_META_KEY: fingerprint, **_factory_meta(crew)})
    return ResolvedCheckpoint(store, run_id, restored, inputs, resumed=True)


def _new_run(crew: Crew, store: SQLiteCheckpointStore, name: str, inputs: dict[str, Any]) -> ResolvedCheckpoint:
    graph = crew.compile(inputs)
    run_id = new_run_id()
    meta = {PLAN_META_KEY: plan_fingerprint(crew, graph, inputs), **_factory_meta(crew)}
    store.start_run(run_id, name=name, meta=meta)
    return ResolvedCheckpoint(store=store, run_id=run_id, inputs=inputs)


def _latest_matching(
    crew: Crew, store: SQLiteCheckpointStore, name: str, inputs: dict[str, Any]
) -> str | None:
    """The newest unfinished run of this crew whose plan matches (other crews may share the name)."""
    candidates = [r for r in store.list_runs(name=name, limit=None) if r.status in _UNFINISHED]
    if not candidates:
        return None
    nodes = _node_ids(crew.compile(inputs or None))
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


def _build_crew(cls: type[Crew], factory: Any) -> Crew:
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
    name), else a method named ``crew``; duck-typed, since this layer cannot import the project."""
    if instance is None or isinstance(instance, type):
        return None
    for name in dir(type(instance)):
        if getattr(getattr(type(instance), name, None), "is_crew", False) is True:
            method: Callable[[], Any] = getattr(instance, name)
            return method
    fallback = getattr(instance, "crew", None)
    return fallback if callable(fallback) else None


def crew_from_checkpoint(
    cls: type[Crew], config: CheckpointConfig, *, factory: str | Callable[[], Any] | Any = None
) -> Crew:
    """``Crew.from_checkpoint``: rebuild the crew, bound to resume ``config.run_id`` on kickoff.

    The crew comes from ``factory`` (a Crew, a callable returning one, a
    ``@CrewBase`` class, or a ``"module:attr"`` reference to any of these) or else
    from the factory reference the run recorded when it started (``crew._factory_ref``). Without either
    there is no way to rebuild it, and the error says what to do instead.
    """
    if not isinstance(config, CheckpointConfig):
        raise CheckpointError(f"from_checkpoint needs a CheckpointConfig, got {type(config).__name__}")
    if config.run_id is None:
        raise CheckpointError("Crew.from_checkpoint needs CheckpointConfig(run_id=...) naming the run to resume")
    info = _run_info(config)
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


def fork_crew(
    cls: type[Crew],
    config: CheckpointConfig,
    branch: str | None = None,
    *,
    factory: Any = None,
    exclude: Iterable[str] = (),
) -> Crew:
    """``Crew.fork``: copy the run's finished outputs under a new run id (``branch`` as its
    label) and return the crew bound to resume that fork; the original run is untouched."""
    new_id = fork_run(config, branch, exclude=exclude)
    return crew_from_checkpoint(cls, config.model_copy(update={"run_id": new_id}), factory=factory)


def fork_run(config: CheckpointConfig, branch: str | None = None, *, exclude: Iterable[str] = ()) -> str:
    """Fork ``config.run_id`` in ``config.path``; returns the new run id."""
    if config.run_id is None:
        raise CheckpointError("forking needs CheckpointConfig(run_id=...) naming the run to fork")
    _run_info(config)
    with SQLiteCheckpointStore(config.path) as store:
        return store.fork(config.run_id, branch or config.branch, exclude=exclude)


def crew_checkpoints(crew: Any, path: str | Path | None = None) -> list[CheckpointInfo]:
    """Runs of this crew (by name) in its checkpoint store, newest first."""
    from crewgraph.checkpoint.api import list_checkpoints

    return list_checkpoints(crew_store_path(crew, path), name=_owner_name(crew), limit=None)


def crew_store_path(crew: Any, path: str | Path | None = None) -> Path | None:
    """``path`` if given, else the crew's checkpoint path, else None (the default location)."""
    if path is not None:
        return Path(path)
    config = _coerce(getattr(crew, "checkpoint", None))
    return config.path if config is not None else None


def _run_info(config: CheckpointConfig) -> CheckpointInfo:
    if not config.path.exists():
        raise CheckpointError(
            f"no run {config.run_id!r}: there is no checkpoint database at {str(config.path)!r}"
        )
    with SQLiteCheckpointStore(config.path) as store:
        return store.get_run(str(config.run_id))
