"""A batch's inputs on Ray: whole crew runs on a pool of worker actors, checkpoints on the driver.

The crew definition goes to the cluster once (``ray.put`` of its cloudpickle,
locks travelling as fresh locks; ``crewgraph.LLM`` pickles its configuration
and rebuilds its client on the worker). Each input is one call of
:meth:`BatchWorker.run` on one of a pool of async actors spread over the
cluster: the ordinary local scheduler runs the crew there, so retries,
guardrails, tools and a run's own parallel tasks behave exactly as here, and
one actor runs many inputs at once (a crew run mostly waits on its model; a
Ray task per input would cost one worker process per input in flight).

The driver's checkpoint file is not reachable from another machine, so a
checkpointed input runs against a scratch store on the worker, seeded with
the input's earlier run when it is resumed; the worker returns that run's
rows with the output, and the engine writes them into the driver's store in
the same transaction that marks the input done. The driver's store then
holds the same runs and node outputs a local batch would have written.
"""

from __future__ import annotations

import asyncio
import io
import os
import pickle
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crewgraph.checkpoint.batch_store import BatchStore, RunTransfer
from crewgraph.checkpoint.config import CheckpointConfig
from crewgraph.checkpoint.location import Location
from crewgraph.errors import ConfigurationError, CrewGraphError

if TYPE_CHECKING:
    from crewgraph.spec.crew import CrewSpec

__all__ = ["RUNS_PER_WORKER", "BatchWorker", "RayItemRunner", "RemoteRunError", "dumps_crew", "ray_item_runner",
           "run_item"]


class RemoteRunError(CrewGraphError):
    """An input's run failed on a Ray worker; ``batch_run`` holds what that run checkpointed."""

    def __init__(self, message: str, *, batch_run: RunTransfer | None = None) -> None:
        super().__init__(message)
        self.batch_run = batch_run
        self.error_text = message
        """The worker's ``Type: message`` of the failure, as a local batch reports it."""


def _sendable_output(output: Any) -> Any:
    """The output to send back: with its run graph when that pickles, else without it."""
    graph = getattr(output, "graph", None)
    if graph is None:
        return output
    try:
        pickle.dumps(graph, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return output.model_copy(update={"graph": None})
    return output


_LOCK = type(threading.Lock())
_RLOCK = type(threading.RLock())


def dumps_crew(crew: CrewSpec) -> bytes:
    """The crew by cloudpickle, each lock travelling as a fresh lock (a lock guards state in one
    process; the worker's copy needs its own). Model clients pickle as their configuration
    (``LLM.__getstate__``) and are rebuilt on the worker; anything else that cannot travel is
    one clear error naming it."""
    from ray import cloudpickle

    class _CrewPickler(cloudpickle.CloudPickler):
        def reducer_override(self, obj: Any) -> Any:
            if type(obj) is _LOCK:
                return threading.Lock, ()
            if type(obj) is _RLOCK:
                return threading.RLock, ()
            return super().reducer_override(obj)

    if getattr(crew, "executor", None) is not None and "executor" in type(crew).model_fields:
        crew = crew.model_copy(update={"executor": None})  # the worker runs the whole crew itself
    buffer = io.BytesIO()
    try:
        _CrewPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(crew)
    except Exception as exc:
        raise ConfigurationError(
            f"crew {getattr(crew, 'name', None)!r} cannot be sent to Ray workers: {type(exc).__name__}: {exc}. "
            "Everything a crew holds (models, tools, callbacks) must pickle; build clients inside tools "
            "rather than holding open connections"
        ) from exc
    return buffer.getvalue()


def _scratch_dir() -> str | None:
    """Where a worker keeps an input's scratch checkpoint: RAM (``/dev/shm``) when there is one.

    The scratch store only carries a run's rows back to the driver (the durable copy is
    written there), so its fsyncs would be pure cost."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


async def run_item(crew_blob: bytes, inputs: dict[str, Any], run_id: str | None, name: str,
                   resume: RunTransfer | None) -> tuple[str, Any, RunTransfer | None]:
    """One input's run, where it is called: ``("completed", output, rows)`` or ``("failed", error, rows)``.

    Errors are returned, not raised, so the rows of a failed run (its finished nodes)
    still reach the driver and a resume does not redo them.
    """
    from crewgraph.runner import run_crew

    crew = _load_crew(crew_blob)
    if run_id is None:  # not checkpointed: nothing to carry back
        try:
            return "completed", _sendable_output(await run_crew(crew, inputs)), None
        except Exception as exc:
            return "failed", f"{type(exc).__name__}: {exc}", None
    with tempfile.TemporaryDirectory(prefix="crewgraph-batch-", dir=_scratch_dir()) as tmp:
        path = Path(tmp) / "run.db"
        with BatchStore(path) as store:
            store.import_run(resume or RunTransfer(run_id=run_id, name=name, status="running"))
        try:
            output = await run_crew(crew, inputs, from_checkpoint=CheckpointConfig(path=path, run_id=run_id))
            status, payload = "completed", _sendable_output(output)
        except Exception as exc:
            status, payload = "failed", f"{type(exc).__name__}: {exc}"
        with BatchStore(path) as store:
            return status, payload, store.export_run(run_id)


class BatchWorker:
    """A Ray actor running many inputs at once on its event loop (crew runs wait on models,
    so one process serves many; a Ray task per input would cost one process per input in flight)."""

    async def run(self, crew_blob: bytes, inputs: dict[str, Any], run_id: str | None, name: str,
                  resume: RunTransfer | None) -> tuple[str, Any, RunTransfer | None]:
        return await run_item(crew_blob, inputs, run_id, name, resume)

    def pid(self) -> int:
        return os.getpid()


_LOADED: dict[bytes, Any] = {}
"""The crews this worker process has unpickled, by their pickle's hash (one batch: one load)."""


def _load_crew(blob: bytes) -> Any:
    import hashlib

    key = hashlib.sha256(blob).digest()
    crew = _LOADED.get(key)
    if crew is None:
        if len(_LOADED) >= 4:
            _LOADED.clear()
        crew = _LOADED[key] = pickle.loads(blob)
    return crew


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        from crewgraph.errors import MissingExtraError

        raise MissingExtraError(
            "running a batch on Ray needs the ray extra: pip install 'crewgraph[ray]'", extra="ray", module="ray"
        ) from exc
    return ray


RUNS_PER_WORKER = 16
"""Inputs one worker actor runs at once by default (its share of ``max_concurrency`` otherwise)."""


class RayItemRunner:
    """Runs each input on one of a pool of :class:`BatchWorker` actors spread over the cluster.

    Each actor asks for the executor's ``num_cpus_per_node`` CPUs (default 1) and its
    ``resources`` and runs up to ``RUNS_PER_WORKER`` inputs at once (its share of
    ``max_concurrency``); there are as many actors as that needs, at most as many as the
    cluster's CPUs hold. An input goes to the actor with the fewest inputs in
    flight. A worker that dies is restarted once by Ray and its inputs are retried once
    there; after that they fail (and a resume runs them again).
    """

    def __init__(self, executor: Any, path: Location | None) -> None:
        self.executor = executor
        self.path = path
        connect = getattr(executor, "connect", None)
        self._ray = connect() if callable(connect) else _import_ray()
        if not self._ray.is_initialized():
            self._ray.init(address=getattr(executor, "address", None), include_dashboard=False)
        cpus = float(getattr(executor, "num_cpus_per_node", None) or 1.0)
        total = float(self._ray.cluster_resources().get("CPU", 1.0))
        self._size = max(1, int(total / cpus)) if cpus > 0 else max(1, int(total))
        self._options: dict[str, Any] = {"num_cpus": cpus, "max_restarts": 1, "max_task_retries": 1,
                                         "scheduling_strategy": "SPREAD"}
        resources = getattr(executor, "resources", None)
        if resources:
            self._options["resources"] = dict(resources)
        runtime_env = getattr(executor, "runtime_env", None)
        if runtime_env:
            self._options["runtime_env"] = dict(runtime_env)
        self._actors: list[Any] = []
        self._load: list[int] = []
        self._crews: dict[int, tuple[Any, Any]] = {}

    def _start(self, limit: int) -> None:
        """The actor pool: enough actors for ``limit`` inputs in flight at ``RUNS_PER_WORKER``
        each, no more than the cluster has room for (each actor costs a worker process)."""
        if self._actors:
            return
        count = max(1, min(self._size, -(-limit // RUNS_PER_WORKER)))
        per_actor = max(1, -(-limit // count))
        cls = self._ray.remote(BatchWorker).options(max_concurrency=per_actor, **self._options)
        self._actors = [cls.remote() for _ in range(count)]
        self._load = [0] * count

    def _crew_ref(self, crew: CrewSpec) -> Any:
        """The crew on the cluster, sent once per batch (kept with the crew so its id stays valid)."""
        found = self._crews.get(id(crew))
        if found is None:
            found = (crew, self._ray.put(dumps_crew(crew)))
            self._crews[id(crew)] = found
        return found[1]

    async def run(self, crew: CrewSpec, inputs: dict[str, Any], *, run_id: str | None, name: str,
                  resume: RunTransfer | None) -> tuple[Any, RunTransfer | None]:
        self._start(RUNS_PER_WORKER * self._size)
        slot = min(range(len(self._actors)), key=self._load.__getitem__)
        self._load[slot] += 1
        ref = self._actors[slot].run.remote(self._crew_ref(crew), inputs, run_id, name, resume)
        try:
            status, payload, transfer = await asyncio.wrap_future(ref.future())
        except asyncio.CancelledError:
            self._ray.cancel(ref)
            raise
        finally:
            self._load[slot] -= 1
        if status != "completed":
            raise RemoteRunError(str(payload), batch_run=transfer)
        return payload, transfer

    def default_concurrency(self, total: int) -> int:
        return max(1, min(total, RUNS_PER_WORKER * self._size))

    def prepare(self, limit: int) -> None:
        """Start the pool sized for ``limit`` inputs in flight (called once the limit is known)."""
        self._start(limit)

    async def close(self) -> None:
        for actor in self._actors:
            self._ray.kill(actor)
        self._actors.clear()
        self._crews.clear()


def ray_item_runner(executor: Any, path: Location | None) -> RayItemRunner:
    return RayItemRunner(executor, path)
