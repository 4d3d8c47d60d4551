"""A batch's inputs as Ray tasks: one whole crew run per task, checkpoints written on the driver.

The crew definition goes to the cluster once (``ray.put``, cloudpickle; model
clients are rebuilt on the worker from their configuration, see
:mod:`crewgraph.distributed`), and each input is one task running
:func:`run_item_on_worker`: the ordinary local scheduler on the worker, so
retries, guardrails, tools and a run's own parallel tasks behave exactly as
here. The driver's checkpoint file is not reachable from another machine, so
a checkpointed input runs against a temporary store on the worker, seeded
with the input's earlier run when it is resumed; the worker returns that
run's rows with the output, and the engine writes them into the driver's
store in the same transaction that marks the input done. The driver's store
then holds the same runs and node outputs a local batch would have written.
"""

from __future__ import annotations

import asyncio
import io
import pickle
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crewgraph.checkpoint.batch_store import BatchStore, RunTransfer
from crewgraph.checkpoint.config import CheckpointConfig
from crewgraph.errors import ConfigurationError, CrewGraphError

if TYPE_CHECKING:
    from crewgraph.spec.crew import CrewSpec

__all__ = ["RayItemRunner", "RemoteRunError", "ray_item_runner", "run_item_on_worker"]


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


def run_item_on_worker(crew_blob: bytes, inputs: dict[str, Any], run_id: str | None, name: str,
                       resume: RunTransfer | None) -> tuple[str, Any, RunTransfer | None]:
    """One input's run, on a worker: ``("completed", output, rows)`` or ``("failed", error, rows)``.

    Errors are returned, not raised, so the rows of a failed run (its finished nodes)
    still reach the driver and a resume does not redo them.
    """
    from crewgraph._internal.sync import run_sync
    from crewgraph.runner import run_crew

    crew = _load_crew(crew_blob)
    if run_id is None:  # not checkpointed: nothing to carry back
        try:
            return "completed", _sendable_output(run_sync(run_crew(crew, inputs))), None
        except Exception as exc:
            return "failed", f"{type(exc).__name__}: {exc}", None
    with tempfile.TemporaryDirectory(prefix="crewgraph-batch-") as tmp:
        path = Path(tmp) / "run.db"
        with BatchStore(path) as store:
            store.import_run(resume or RunTransfer(run_id=run_id, name=name, status="running"))
        try:
            output = run_sync(run_crew(crew, inputs, from_checkpoint=CheckpointConfig(path=path, run_id=run_id)))
            status, payload = "completed", _sendable_output(output)
        except Exception as exc:
            status, payload = "failed", f"{type(exc).__name__}: {exc}"
        with BatchStore(path) as store:
            return status, payload, store.export_run(run_id)


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


def _connect(executor: Any, ray: Any) -> None:
    """Make sure this process is connected to the executor's cluster."""
    for method in ("ensure_connected", "connect", "start"):
        hook = getattr(executor, method, None)
        if callable(hook):
            hook()
            return
    if not ray.is_initialized():
        ray.init(address=getattr(executor, "address", None), include_dashboard=False)


class RayItemRunner:
    """Runs each input as one Ray task on ``executor``'s cluster (see the module docstring)."""

    def __init__(self, executor: Any, path: Path | None) -> None:
        self.executor = executor
        self.path = path
        self._ray = _import_ray()
        _connect(executor, self._ray)
        options: dict[str, Any] = {"num_cpus": self._cpus(), "max_retries": 1}
        resources = getattr(executor, "resources", None)
        if resources:
            options["resources"] = dict(resources)
        runtime_env = getattr(executor, "runtime_env", None)
        if runtime_env:
            options["runtime_env"] = runtime_env
        self._task = self._ray.remote(run_item_on_worker).options(**options)
        self._crews: dict[int, tuple[Any, Any]] = {}

    def _cpus(self) -> float:
        cpus = getattr(self.executor, "num_cpus_per_node", None)
        return float(cpus) if cpus else 1.0

    def _crew_ref(self, crew: CrewSpec) -> Any:
        """The crew on the cluster, sent once per batch (kept with the crew so its id stays valid)."""
        found = self._crews.get(id(crew))
        if found is None:
            found = (crew, self._ray.put(dumps_crew(crew)))
            self._crews[id(crew)] = found
        return found[1]

    async def run(self, crew: CrewSpec, inputs: dict[str, Any], *, run_id: str | None, name: str,
                  resume: RunTransfer | None) -> tuple[Any, RunTransfer | None]:
        ref = self._task.remote(self._crew_ref(crew), inputs, run_id, name, resume)
        try:
            status, payload, transfer = await asyncio.wrap_future(ref.future())
        except asyncio.CancelledError:
            self._ray.cancel(ref)
            raise
        if status != "completed":
            raise RemoteRunError(str(payload), batch_run=transfer)
        return payload, transfer

    def default_concurrency(self, total: int) -> int:
        cpus = float(self._ray.cluster_resources().get("CPU", 1.0))
        return max(1, min(total, int(cpus / self._cpus())))

    async def close(self) -> None:
        self._crews.clear()


def ray_item_runner(executor: Any, path: Path | None) -> RayItemRunner:
    return RayItemRunner(executor, path)
