"""``kickoff_for_each`` batches: many runs of one crew, bounded concurrency, results as they finish.

One engine serves every form (the list, the async list, the iterator) and both
places a run can happen: here, on this event loop (the local runner), or on
a pool of Ray worker actors (``executor=RayExecutor(...)``, the runner in
:mod:`crewgraph.runner.batch_ray`). It is a run path, so it lives in the
runner; ``crewgraph.distributed`` holds what callers see of it (``BatchRun``,
``BatchResult``) and the executor. The engine:

1. opens the batch record (:class:`~crewgraph.checkpoint.batch_store.BatchStore`,
   in the crew's checkpoint database) when the crew checkpoints or the call
   resumes a batch, checking on resume that the inputs are the ones recorded;
2. yields the inputs that finished before the resume (``restored=True``),
   without running anything;
3. keeps at most ``max_concurrency`` of the other inputs running, records each
   one's run id before it starts and its output or error when it ends, and
   yields it at once (an input's failure never stops the others).

Each input is an ordinary checkpointed crew run, so a batch killed at input
6,000 resumes at the inputs that had not finished, and an input killed half-way
resumes from its finished nodes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from crewgraph.checkpoint.batch_store import (
    BatchStore,
    RunTransfer,
    input_fingerprint,
    inputs_digest,
    item_key,
)
from crewgraph.checkpoint.config import CheckpointConfig, default_checkpoint_path
from crewgraph.checkpoint.location import Location, env_store_url, location_of, open_batch_store
from crewgraph.checkpoint.setup import coerce_config, owner_name
from crewgraph.distributed._batch_types import BatchResult
from crewgraph.errors import BatchError, CheckpointError

if TYPE_CHECKING:
    from crewgraph.spec.crew import CrewSpec

__all__ = ["BatchPlan", "ItemRunner", "LocalItemRunner", "batch_error", "check_inputs", "open_batch", "run_batch"]

LOCAL_ASYNC_CONCURRENCY = 64
"""Default number of inputs ``kickoff_for_each_async`` runs at once on this machine."""


class ItemRunner(Protocol):
    """Runs one input: returns its output and, when the run happened in another store, its rows."""

    async def run(self, crew: CrewSpec, inputs: dict[str, Any], *, run_id: str | None, name: str,
                  resume: RunTransfer | None) -> tuple[Any, RunTransfer | None]: ...

    def default_concurrency(self, total: int) -> int: ...

    async def close(self) -> None: ...


class LocalItemRunner:
    """Runs an input on this event loop with the normal scheduler, checkpointing to ``path``."""

    def __init__(self, path: Location | None, concurrency: int) -> None:
        self.path = path
        self.concurrency = concurrency

    async def run(self, crew: CrewSpec, inputs: dict[str, Any], *, run_id: str | None, name: str,
                  resume: RunTransfer | None) -> tuple[Any, RunTransfer | None]:
        from crewgraph.runner import run_crew
        from crewgraph.spec._copy import copy_agent

        ckpt = None if run_id is None or self.path is None else CheckpointConfig(path=self.path, run_id=run_id)
        if crew.manager_agent is not None:  # each input gets its own manager, as CrewAI's crew.copy() does
            crew = crew.model_copy(update={"manager_agent": copy_agent(crew.manager_agent)})
        return await run_crew(crew, inputs, from_checkpoint=ckpt), None

    def default_concurrency(self, total: int) -> int:
        return max(1, min(total, self.concurrency))

    async def close(self) -> None:
        return None


@dataclass
class BatchPlan:
    """An opened batch: the record (None when not checkpointed) and what is left to run."""

    name: str
    inputs: list[dict[str, Any]]
    store: BatchStore | None = None
    batch_id: str | None = None
    done: list[int] = field(default_factory=list)
    todo: list[int] = field(default_factory=list)
    run_ids: dict[int, str] = field(default_factory=dict)
    config: CheckpointConfig | None = None
    """Lease settings (``lease_seconds``, ``lease_wait``) for the inputs."""
    leases: Any = None
    """The store's lease backend: each input is leased while this process runs it."""

    @property
    def path(self) -> Location | None:
        """The store's location (a SQLite path or the PostgreSQL URL)."""
        return None if self.store is None else location_of(self.store)


def check_inputs(inputs: Any) -> list[dict[str, Any]]:
    """The inputs list as dicts; a clear error naming the first bad entry."""
    if isinstance(inputs, dict | str | bytes) or not isinstance(inputs, Sequence):
        raise ValueError(f"kickoff_for_each needs a list of inputs dicts, got {type(inputs).__name__}")
    out: list[dict[str, Any]] = []
    for i, item in enumerate(inputs):
        if item is None:
            item = {}
        if not isinstance(item, dict):
            raise ValueError(f"kickoff_for_each inputs[{i}] must be a dict of inputs, not {type(item).__name__}")
        out.append(dict(item))
    return out


def open_batch(crew: CrewSpec, inputs: list[dict[str, Any]], from_checkpoint: Any) -> BatchPlan:
    """Open or create the batch record (see :func:`run_batch` for ``from_checkpoint``)."""
    name = owner_name(crew)
    own = coerce_config(crew.checkpoint)
    if from_checkpoint is None or from_checkpoint is False:
        if own is None:
            return BatchPlan(name, inputs, todo=list(range(len(inputs))))
    elif isinstance(from_checkpoint, CheckpointConfig) and from_checkpoint.run_key:
        own = from_checkpoint  # kickoff_for_each(run_key=...): the store it names
    elif not (from_checkpoint is True or isinstance(from_checkpoint, str)):
        raise CheckpointError(
            "kickoff_for_each(from_checkpoint=...) takes a batch id, True (the latest unfinished batch "
            f"over the same inputs) or None, not {type(from_checkpoint).__name__}"
        )
    path = own.location if own is not None else (env_store_url() or default_checkpoint_path())
    store: BatchStore = open_batch_store(path)
    try:
        plan = _plan(store, name, inputs, from_checkpoint)
        plan.config = own or CheckpointConfig(path=path)
        plan.leases = store.lease_backend()
        return plan
    except BaseException:
        store.close()
        raise


def _plan(store: BatchStore, name: str, inputs: list[dict[str, Any]], from_checkpoint: Any) -> BatchPlan:
    fingerprints = [input_fingerprint(i) for i in inputs]
    batch_id: str | None = None
    if isinstance(from_checkpoint, CheckpointConfig) and from_checkpoint.run_key:
        from crewgraph.checkpoint.run_keys import claim_run_key
        from crewgraph.ids import new_run_id

        batch_id = claim_run_key(location_of(store), f"batch:{name}", from_checkpoint.run_key, new_run_id(),
                                 inputs_digest(fingerprints))
        store.create_batch(name, fingerprints, batch_id=batch_id)  # unless the key's batch exists
        from_checkpoint = batch_id
    if isinstance(from_checkpoint, str):
        batch_id = store.get_batch(from_checkpoint).batch_id  # accepts a unique prefix
    elif from_checkpoint is True:
        batch_id = store.latest_unfinished(name, inputs_digest(fingerprints))
    if batch_id is None:
        new_id = store.create_batch(name, fingerprints)
        return BatchPlan(name, inputs, store, new_id, todo=list(range(len(inputs))))
    info = store.get_batch(batch_id)
    if info.name != name:
        raise CheckpointError(f"batch {batch_id!r} was run by crew {info.name!r}, not {name!r}; resume it with "
                              "the crew that ran it")
    items = store.items(batch_id)
    if len(items) != len(inputs):
        raise CheckpointError(f"batch {batch_id!r} has {len(items)} inputs, but {len(inputs)} were given; resume "
                              "it with the same inputs list (same order), or start a new batch")
    for item, fp in zip(items, fingerprints, strict=True):
        if item.fingerprint != fp:
            raise CheckpointError(
                f"inputs[{item.index}] differs from the one batch {batch_id!r} ran at that position; resume it "
                "with the same inputs list (same order), or start a new batch"
            )
    plan = BatchPlan(name, inputs, store, batch_id)
    for item in items:
        (plan.done if item.status == "completed" else plan.todo).append(item.index)
        if item.run_id is not None:
            plan.run_ids[item.index] = item.run_id
    return plan


async def run_batch(
    crew: CrewSpec,
    inputs: Any,
    *,
    make_runner: Callable[[Location | None], ItemRunner] | None = None,
    max_concurrency: int | None = None,
    from_checkpoint: Any = None,
    local_concurrency: int = LOCAL_ASYNC_CONCURRENCY,
) -> AsyncIterator[BatchResult]:
    """Run ``crew`` once per inputs dict, yielding each :class:`BatchResult` as it finishes.

    ``from_checkpoint``: None starts a new batch (recorded when the crew checkpoints);
    a batch id (or a unique prefix) resumes that batch; True resumes the newest
    unfinished batch of this crew over the same inputs list, or starts a new one.
    Inputs that finished before a resume come first, with ``restored=True``.
    ``make_runner`` builds the runner of one input from the checkpoint path (default: run
    here, ``local_concurrency`` at once unless ``max_concurrency`` says otherwise).
    """
    items = check_inputs(inputs)
    if max_concurrency is not None and max_concurrency < 1:
        raise ValueError("max_concurrency must be >= 1")
    plan = open_batch(crew, items, from_checkpoint)
    runner = make_runner(plan.path) if make_runner is not None else LocalItemRunner(plan.path, local_concurrency)
    try:
        for index in plan.done:
            yield await _restore(crew, plan, index)
        limit = max_concurrency or runner.default_concurrency(len(plan.todo))
        prepare = getattr(runner, "prepare", None)
        if callable(prepare) and plan.todo:
            prepare(limit)  # e.g. size the Ray worker pool for this many inputs in flight
        async for result in _run_todo(crew, plan, runner, limit):
            yield result
    finally:
        await runner.close()
        if plan.store is not None and plan.batch_id is not None:
            plan.store.finish_batch(plan.batch_id)
            plan.store.close()
        if plan.leases is not None:
            plan.leases.close()


async def _run_todo(crew: CrewSpec, plan: BatchPlan, runner: ItemRunner, limit: int) -> AsyncIterator[BatchResult]:
    """Run the inputs left, ``limit`` at once. An input another live process is running (its lease
    is held) is put off until the free ones are done, then waited for up to ``lease_wait``: so two
    resumers of one batch share its inputs, and none runs twice."""
    todo = iter(plan.todo)
    deferred: list[int] = []
    pending: set[asyncio.Task[BatchResult | None]] = set()
    index_of: dict[asyncio.Task[BatchResult | None], int] = {}

    def fill() -> None:
        while len(pending) < limit:
            index = next(todo, None)
            waiting = index is None
            if waiting:
                if not deferred:
                    return
                index = deferred.pop(0)
            assert index is not None
            task = asyncio.ensure_future(_run_one(crew, plan, runner, index, wait=waiting))
            index_of[task] = index
            pending.add(task)

    fill()
    try:
        while pending:
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=lambda t: index_of[t]):
                pending.discard(task)
                result = task.result()
                if result is None:  # held by another process: after the free inputs
                    deferred.append(index_of.pop(task))
                    continue
                index_of.pop(task)
                yield result
            fill()
    finally:
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


async def _run_one(crew: CrewSpec, plan: BatchPlan, runner: ItemRunner, index: int, *,
                   wait: bool = False) -> BatchResult | None:
    """One input under its lease; None when another process holds it (and ``wait`` is False)."""
    if plan.leases is None or plan.store is None or plan.batch_id is None:
        return await _run_leased(crew, plan, runner, index)
    from crewgraph.checkpoint.lease import RunLeasedError, aacquire_lease

    config = plan.config or CheckpointConfig()
    resource = item_key(plan.batch_id, index)
    try:
        keeper = await aacquire_lease(plan.leases, resource, ttl=config.lease_seconds,
                                      wait=config.lease_wait if wait else 0.0,
                                      what=f"inputs[{index}] of batch {plan.batch_id!r}")
    except RunLeasedError as exc:
        if not wait:
            return None
        # not recorded as failed: the other process is running it, and records its outcome
        return BatchResult(index, plan.inputs[index], None, str(exc), plan.run_ids.get(index), plan.batch_id,
                           exception=exc)
    try:
        if plan.store.item_status(plan.batch_id, index) == "completed":
            return await _restore(crew, plan, index)  # another process finished it meanwhile
        # fenced: a process that lost this input's lease records neither its output nor a failure
        with plan.store.fence(resource, keeper):
            return await _run_leased(crew, plan, runner, index)
    finally:
        keeper.release()


async def _run_leased(crew: CrewSpec, plan: BatchPlan, runner: ItemRunner, index: int) -> BatchResult:
    inputs = plan.inputs[index]
    store, batch_id = plan.store, plan.batch_id
    run_id: str | None = None
    resume: RunTransfer | None = None
    if store is not None and batch_id is not None:
        run_id, resumed = store.begin_item(batch_id, index, plan.name)
        resume = store.export_run(run_id) if resumed else None
    start = time.perf_counter()
    try:
        output, transfer = await runner.run(crew, inputs, run_id=run_id, name=plan.name, resume=resume)
    except Exception as exc:
        error = getattr(exc, "error_text", None) or f"{type(exc).__name__}: {exc}"
        transfer = getattr(exc, "batch_run", None)  # a run on another machine: its checkpointed rows
        if store is not None and batch_id is not None:
            store.fail_item(batch_id, index, error, run=transfer)
        return BatchResult(index, inputs, None, error, run_id, batch_id, seconds=time.perf_counter() - start,
                           exception=exc)
    if store is not None and batch_id is not None:
        store.complete_item(batch_id, index, output, run=transfer)
    return BatchResult(index, inputs, output, None, run_id or getattr(output, "run_id", None), batch_id,
                       seconds=time.perf_counter() - start)


async def _restore(crew: CrewSpec, plan: BatchPlan, index: int) -> BatchResult:
    """A finished input's output: from the batch record, else rebuilt from its completed run
    (every node restored, nothing re-run) when the output itself could not be stored."""
    assert plan.store is not None and plan.batch_id is not None
    run_id = plan.run_ids.get(index)
    if run_id is None:
        run_id = next((i.run_id for i in plan.store.items(plan.batch_id) if i.index == index), None)
    output = plan.store.output(plan.batch_id, index)
    if output is None and run_id is not None:
        from crewgraph.runner import run_crew

        output = await run_crew(crew, plan.inputs[index],
                                from_checkpoint=CheckpointConfig(path=location_of(plan.store), run_id=run_id))
    return BatchResult(index, plan.inputs[index], output, None, run_id, plan.batch_id, restored=True)


def batch_error(results: list[BatchResult], batch_id: str | None) -> BatchError | None:
    """The error a list-form batch raises when inputs failed (None when every input finished)."""
    failed = [r for r in results if not r.ok]
    if not failed:
        return None
    shown = "; ".join(f"inputs[{r.index}]: {r.error}" for r in failed[:3]) + ("; ..." if len(failed) > 3 else "")
    where = (f" They are recorded in batch {batch_id}: fix the cause and resume with "
             f"kickoff_for_each(inputs, from_checkpoint={batch_id!r}) to re-run only those."
             if batch_id else " (Crew(checkpoint=True) records batches, so a resume re-runs only failed inputs.)")
    error = BatchError(
        f"{len(failed)} of {len(results)} inputs failed ({shown}); the other {len(results) - len(failed)} "
        f"finished.{where}",
        batch_id=batch_id,
        failures={r.index: str(r.error) for r in failed},
        results=[r.output for r in sorted(results, key=lambda r: r.index)],
    )
    error.__cause__ = failed[0].exception
    return error
