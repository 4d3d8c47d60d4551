"""Leases and run keys for persisted flow runs: one process owns a flow run at a time.

A journaled flow run (``@persist`` / ``SQLiteFlowPersistence``) looks the same whether its
process is alive or died, so two processes resuming or answering it both replayed the
journal and both ran the method after the answer. Every journaled run therefore holds a
lease (:mod:`crewgraph.checkpoint.lease`) on ``flow:<run_id>`` in the flow state database
itself (:class:`~crewgraph.checkpoint._sqlite_leases.SQLiteLeases`) while it runs, resumes
or is answered. A second process gets :class:`~crewgraph.checkpoint.lease.RunLeasedError`
naming the holder, or waits ``lease_wait`` seconds; a SIGKILLed holder is taken over.

The lease is taken before the run's record is read, so a waiter reads what the holder left
(an answered run is then no longer waiting, a finished one is finished).

``kickoff(..., run_key=KEY)`` binds KEY to one run id in the same database
(:mod:`crewgraph.checkpoint.run_keys`, scope ``flow:NAME``): re-issued, it resumes the
unfinished run or returns the finished run's recorded output.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.checkpoint.lease import LeaseKeeper
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.persistence import FlowPersistence

__all__ = ["fenced_journal", "flow_resource", "lease_settings", "take_flow_lease"]


def flow_resource(run_id: str) -> str:
    """The lease resource of a flow run."""
    return f"flow:{run_id}"


def lease_settings(flow: Any) -> tuple[float, float]:
    """``(lease_seconds, lease_wait)``: the flow's (class) attributes when it sets them, else
    ``$CREWGRAPH_LEASE_SECONDS`` / ``$CREWGRAPH_LEASE_WAIT`` (defaults 30 s and 0)."""
    from crewgraph.checkpoint.config import CheckpointConfig

    defaults = CheckpointConfig()
    seconds = getattr(flow, "lease_seconds", None)
    wait = getattr(flow, "lease_wait", None)
    seconds = defaults.lease_seconds if seconds is None else float(seconds)
    wait = defaults.lease_wait if wait is None else float(wait)
    if seconds <= 0 or wait < 0:
        raise ValueError(f"flow {type(flow).__name__}: lease_seconds must be > 0 and lease_wait >= 0 "
                         f"(got {seconds!r}, {wait!r})")
    return seconds, wait


async def take_flow_lease(flow: Any, store: FlowPersistence, run_id: str) -> tuple[LeaseKeeper | None, bool]:
    """(the lease on flow run ``run_id``, whether the caller must release it). A lease this task
    already holds is handed on; a store without leases (not SQLite) gives ``(None, False)``."""
    from crewgraph.checkpoint.lease import aacquire_lease, held_lease

    resource = flow_resource(run_id)
    held = held_lease(resource)
    if held is not None:
        return held, False
    make = getattr(store, "lease_backend", None)
    backend = make() if callable(make) else None
    if backend is None:
        warn_unleased(store, f"flow run {run_id!r}")
        return None, False
    seconds, wait = lease_settings(flow)
    keeper = await aacquire_lease(backend, resource, ttl=seconds, wait=wait, owns_backend=True,
                                  what=f"flow run {run_id!r} of {getattr(flow, 'flow_name', type(flow).__name__)!r}")
    return keeper, True


@contextmanager
def fenced_journal(store: Any, keeper: LeaseKeeper | None, run_id: str, flow: Any) -> Iterator[None]:
    """Fence the journal writes of run ``run_id`` (its record and steps) and of its state (the
    flow's state id) by ``keeper`` in a store that fences in its own transactions (SQLite); the
    journal checks other stores' writes through the lease backend itself."""
    fence = getattr(store, "fence", None)
    if keeper is None or not callable(fence):
        yield
        return
    from crewgraph.flow.state import state_id

    with fence(run_id, keeper), fence(state_id(flow.state), keeper):
        yield


_WARNED: set[type] = set()


def warn_unleased(store: Any, what: str) -> None:
    """Say once per store class that it cannot lease, so ``what`` runs unguarded."""
    kind = type(store)
    if kind in _WARNED:
        return
    _WARNED.add(kind)
    import warnings

    from crewgraph.checkpoint.lease import UnleasedStoreWarning

    warnings.warn(
        f"{kind.__name__} cannot lease flow runs (it has no lease_backend()), so {what} and any other run it "
        "keeps are not guarded: two processes resuming the same run or pending feedback could both run the "
        "methods after it. Give the class a lease_backend() returning a LeaseBackend (for instance "
        "crewgraph.checkpoint.SQLiteLeases(path) on a file every process sees), or use "
        "SQLiteFlowPersistence; filter UnleasedStoreWarning if only one process ever resumes its runs.",
        UnleasedStoreWarning, stacklevel=3)


async def take_feedback_lease(flow: Any, store: Any, flow_id: str) -> LeaseKeeper | None:
    """The lease on the pending feedback of state ``flow_id`` in a store without a run journal
    (``feedback:<flow_id>``), or None when the store cannot lease (said once per class)."""
    from crewgraph.checkpoint.lease import aacquire_lease

    make = getattr(store, "lease_backend", None)
    backend = make() if callable(make) else None
    if backend is None:
        warn_unleased(store, f"the pending feedback of flow {flow_id!r}")
        return None
    seconds, wait = lease_settings(flow)
    return await aacquire_lease(backend, f"feedback:{flow_id}", ttl=seconds, wait=wait, owns_backend=True,
                                what=f"the pending feedback of flow {flow_id!r} ({type(flow).__name__})")


def inputs_fingerprint(inputs: dict[str, Any] | None) -> str:
    """A stable hash of a kickoff's inputs (the same key with other inputs is refused)."""
    text = json.dumps(inputs or {}, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def keyed_kickoff(flow: Flow[Any], run_key: str, inputs: dict[str, Any] | None, limit: Any) -> Any:
    """``kickoff(inputs, run_key=KEY)``: the run KEY names, resumed, answered from its record,
    or started under that run id the first time."""
    from crewgraph.checkpoint.lease import holding
    from crewgraph.checkpoint.run_keys import claim_run_key
    from crewgraph.errors import CheckpointError
    from crewgraph.flow._journal import load_output
    from crewgraph.flow._run import kickoff_flow
    from crewgraph.ids import new_run_id

    if not isinstance(run_key, str) or not run_key.strip():
        raise CheckpointError(f"run_key must be a non-empty string, not {run_key!r}")
    stores = flow._persistence_plan()
    store = stores[""][0] if "" in stores else None
    path = getattr(store, "db_path", None)
    if store is None or not store.supports_runs or path is None:
        raise CheckpointError(
            f"run_key needs a persisted flow with a run journal: put @persist on {type(flow).__name__} "
            "(or checkpoint = True) with SQLiteFlowPersistence, the default store")
    if inputs and "id" in inputs:
        raise CheckpointError("give run_key or inputs={'id': ...}, not both: the key already names the run")
    run_id = claim_run_key(path, f"flow:{flow.flow_name}", run_key.strip(), new_run_id(), inputs_fingerprint(inputs))
    keeper, owns = await take_flow_lease(flow, store, run_id)
    if keeper is None or not owns:
        return await _keyed(flow, store, run_id, inputs, limit, kickoff_flow, load_output)
    with holding(keeper):
        return await _keyed(flow, store, run_id, inputs, limit, kickoff_flow, load_output)


async def _keyed(flow: Any, store: Any, run_id: str, inputs: Any, limit: Any, kickoff_flow: Any,
                 load_output: Any) -> Any:
    import base64

    record = store.load_run(run_id)  # read under the lease: what an earlier holder left
    if record is None:
        flow.__dict__["_keyed_run_id"] = run_id
        try:
            return await kickoff_flow(flow, inputs, limit)
        finally:
            flow.__dict__.pop("_keyed_run_id", None)
    if record.get("status") == "completed" and "output" in record:
        blob = record["output"]
        return load_output(base64.b64decode(blob)) if blob is not None else None
    if record.get("status") == "paused":
        from crewgraph.flow.human_feedback import PendingQuestion, PendingRun

        questions = tuple(PendingQuestion(method=p["method"], question=p["question"], key=p["key"])
                          for p in record.get("pending") or [])
        return PendingRun(run_id=run_id, flow_id=record["flow_uuid"], flow_name=flow.flow_name, questions=questions)
    return await kickoff_flow(flow, {"id": record["flow_uuid"]}, limit, resume=record)
