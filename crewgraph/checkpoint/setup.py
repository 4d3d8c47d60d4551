"""Turning an owner's checkpoint settings into (store, run id, restored outputs).

This layer-1 module knows checkpoint stores and run ids, nothing about crews:
the crew-specific part of a resume (compiling the plan, comparing its
fingerprint, rebuilding a crew from a factory) lives in
``crewgraph.runner.resume``, which calls the helpers here. Owners are read
through :class:`CheckpointOwner` (``.name`` and ``.checkpoint``), so no
facade is ever imported from here.

``from_checkpoint`` accepts:

- ``None``: a new run (checkpointed when the owner's ``checkpoint`` is on),
  unless that config has ``run_id`` set (what ``Crew.from_checkpoint``
  builds): then that run resumes.
- a run id string, or a :class:`CheckpointConfig` with ``run_id``: resume it
  (a config with ``branch`` first forks the run and resumes the fork).
- ``True`` (or a config without ``run_id``): the latest run (for a crew: the
  latest unfinished run with the same plan, see ``crewgraph.runner.resume``).

A node that was running when the process died is not restored: it
re-executes from its start (its output was never saved).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from crewgraph.checkpoint.config import CheckpointConfig
from crewgraph.checkpoint.info import CheckpointInfo
from crewgraph.checkpoint.lease import Fences, LeaseKeeper, acquire_lease, held_lease, holding
from crewgraph.checkpoint.location import Location, is_store_url
from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore
from crewgraph.errors import CheckpointError

__all__ = [
    "FACTORY_META_KEY",
    "PLAN_META_KEY",
    "CheckpointOwner",
    "ResolvedCheckpoint",
    "check_owner",
    "coerce_config",
    "fenced_run",
    "fork_run",
    "hold_run",
    "keyed_request",
    "lease_run",
    "owner_checkpoints",
    "owner_name",
    "owner_store_path",
    "resolve_checkpoint",
    "resume_request",
    "run_info",
    "run_resource",
]

PLAN_META_KEY = "resume"
"""Run-meta key holding the plan fingerprint (apart from the scheduler's own meta keys)."""
FACTORY_META_KEY = "crew_factory"
"""Run-meta key holding a ``module:attr`` reference that rebuilds the crew, when known."""


class CheckpointOwner(Protocol):
    """What checkpoint resolution reads from a Crew or Flow."""

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
    lease: LeaseKeeper | None = None
    """The lease on the run this process holds while it runs it (see :func:`lease_run`)."""
    owns_lease: bool = False
    """Whether the run path releases ``lease`` when it ends (False: a caller holding it does)."""

    def __iter__(self) -> Iterator[Any]:
        return iter((self.store, self.run_id, self.restored))

    def release(self) -> None:
        """End this process's hold on the run (when it took the lease itself)."""
        if self.lease is not None and self.owns_lease:
            self.lease.release()


@contextmanager
def hold_run(store: Any, run_id: str, config: CheckpointConfig | None, *, what: str | None = None
             ) -> Iterator[LeaseKeeper | None]:
    """Hold the lease on ``run_id`` for a block that changes the run and then runs it (a review
    answer recorded, then the resume): the run started inside hands the lease on, not retaking it."""
    keeper, owns = lease_run(store, run_id, config, what=what)
    if keeper is None or not owns:
        yield keeper
        return
    with holding(keeper):
        yield keeper


@contextmanager
def fenced_run(checkpoint: ResolvedCheckpoint, run_id: str) -> Iterator[None]:
    """Inside the block every write of ``checkpoint.store`` for ``run_id`` is fenced by the run's
    lease (see :mod:`crewgraph.checkpoint.lease`): a process that lost it cannot save over the
    new holder's work. A store without :class:`Fences` is wrapped so that each write first
    checks the lease through its backend."""
    store, keeper = checkpoint.store, checkpoint.lease
    if store is None or keeper is None:
        yield
        return
    if isinstance(store, Fences):
        with store.fence(run_id, keeper):
            yield
        return
    checkpoint.store = _VerifyingStore(store, keeper)
    try:
        yield
    finally:
        checkpoint.store = store


class _VerifyingStore:
    """A checkpoint store whose writes cannot check the lease in their own transaction: each one
    is preceded by the lease's compare-and-set through its backend."""

    _WRITES = frozenset({"start_run", "save_node", "save_failure", "finish_run", "update_meta"})

    def __init__(self, store: Any, keeper: LeaseKeeper) -> None:
        self._store = store
        self._keeper = keeper

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._store, name)
        if name not in self._WRITES:
            return found
        keeper = self._keeper

        def fenced(*args: Any, **kwargs: Any) -> Any:
            keeper.verify()
            return found(*args, **kwargs)

        return fenced


def keyed_request(from_checkpoint: Any, run_key: str | None, own: Any) -> Any:
    """``from_checkpoint`` for a kickoff given ``run_key``: the owner's checkpoint config (or the
    default one: a key needs a store) carrying the key. Both at once is a CheckpointError."""
    if run_key is None:
        return from_checkpoint
    if not isinstance(run_key, str) or not run_key.strip():
        raise CheckpointError(f"run_key must be a non-empty string, not {run_key!r}")
    if from_checkpoint is not None and from_checkpoint is not False:
        raise CheckpointError("give run_key or from_checkpoint, not both: a run key already says which run "
                              "to resume (the one it names, once it exists)")
    base = coerce_config(own) or CheckpointConfig()
    return base.model_copy(update={"run_key": run_key.strip(), "run_id": None, "branch": None, "enabled": True})


def run_resource(run_id: str) -> str:
    """The lease resource of a checkpointed run."""
    return f"run:{run_id}"


def lease_run(store: Any, run_id: str, config: CheckpointConfig | None, *, what: str | None = None
              ) -> tuple[LeaseKeeper | None, bool]:
    """(the lease on ``run_id`` for this process, whether the caller must release it).

    A lease this task already holds (a review answer recorded under it) is handed on; else
    it is taken in ``store`` with ``config``'s ``lease_seconds``/``lease_wait``, raising
    :class:`~crewgraph.checkpoint.lease.RunLeasedError` when another live process holds it.
    """
    resource = run_resource(run_id)
    held = held_lease(resource)
    if held is not None:
        return held, False
    backend = store.lease_backend() if hasattr(store, "lease_backend") else None
    if backend is None:
        return None, False
    config = config or CheckpointConfig()
    keeper = acquire_lease(backend, resource, ttl=config.lease_seconds, wait=config.lease_wait,
                           what=what or f"run {run_id!r}", owns_backend=True)
    return keeper, True


def coerce_config(value: Any) -> CheckpointConfig | None:
    """An owner's ``checkpoint`` setting as a config (None: off); a bad value is a CheckpointError."""
    try:
        return CheckpointConfig.coerce(value)
    except TypeError as exc:
        raise CheckpointError(str(exc)) from None


def owner_name(owner: Any) -> str:
    """The name runs are recorded under (the compiler's ExecutionGraph name rule)."""
    return getattr(owner, "name", None) or "crew"


def resume_request(from_checkpoint: Any, own: CheckpointConfig | None) -> tuple[CheckpointConfig | None, bool]:
    """(the run the caller asked to resume, or None for "no resume"; whether "the latest")."""
    base = own or CheckpointConfig()
    convert = getattr(from_checkpoint, "to_store_config", None)
    if callable(convert):  # CrewAI's CheckpointConfig(restore_from=...): a run of the same store
        from_checkpoint = convert()
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


def check_owner(info: CheckpointInfo, name: str) -> None:
    """Refuse to resume a run another owner made (it would restore someone else's outputs)."""
    if info.name != name:
        raise CheckpointError(
            f"run {info.run_id!r} was made by {info.name!r}, not {name!r}; resuming it would "
            "restore another crew's outputs. Pick a run of this crew "
            "(`crewgraph checkpoints list`)."
        )


def resolve_checkpoint(
    owner: Any, from_checkpoint: Any = None, *, inputs: dict[str, Any] | None = None
) -> ResolvedCheckpoint:
    """Open the store and pick the run for an owner without a plan to check (the latest run of
    its name for ``True``). Crews use ``crewgraph.runner.resume.resolve_crew_checkpoint``."""
    inputs = dict(inputs or {})
    own = coerce_config(getattr(owner, "checkpoint", None))
    request, _latest = resume_request(from_checkpoint, own)
    config = request or own
    if config is None:
        return ResolvedCheckpoint(inputs=inputs)
    store = config.open_store()
    try:
        if request is None:
            return ResolvedCheckpoint(store=store, inputs=inputs)
        name = owner_name(owner)
        run_id = request.run_id
        if run_id is None:
            latest = store.latest_run(name=name)
            if latest is None:
                raise CheckpointError(
                    f"no checkpointed run of {name!r} in {str(store.path)!r} to resume; "
                    "run it once with checkpoint=True (or pass a run id)"
                )
            run_id = latest.run_id
        check_owner(store.get_run(run_id), name)
        if request.branch is not None:
            run_id = store.fork(run_id, request.branch)
        return ResolvedCheckpoint(store, run_id, store.completed(run_id), inputs, resumed=True)
    except BaseException:
        store.close()
        raise


def fork_run(config: CheckpointConfig, branch: str | None = None, *, exclude: Iterable[str] = ()) -> str:
    """Fork ``config.run_id`` in ``config.path``; returns the new run id."""
    if config.run_id is None:
        raise CheckpointError("forking needs CheckpointConfig(run_id=...) naming the run to fork")
    run_info(config)
    with config.open_store() as store:
        return store.fork(config.run_id, branch or config.branch, exclude=exclude)


def owner_checkpoints(owner: Any, path: str | Path | None = None) -> list[CheckpointInfo]:
    """Runs of this owner (by name) in its checkpoint store, newest first."""
    from crewgraph.checkpoint.api import list_checkpoints

    return list_checkpoints(owner_store_path(owner, path), name=owner_name(owner), limit=None)


def owner_store_path(owner: Any, path: str | Path | None = None) -> Location | None:
    """``path`` if given, else the owner's checkpoint store (path or URL), else None (the default)."""
    if path is not None:
        return path if is_store_url(path) else Path(path)
    config = coerce_config(getattr(owner, "checkpoint", None))
    return config.location if config is not None else None


def run_info(config: CheckpointConfig) -> CheckpointInfo:
    """The stored run ``config.run_id`` (a CheckpointError when the database or run is missing)."""
    if not config.store_exists():
        raise CheckpointError(
            f"no run {config.run_id!r}: there is no checkpoint database at {config.where!r}"
        )
    with config.open_store() as store:
        return store.get_run(str(config.run_id))
