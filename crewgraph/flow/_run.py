"""What ``Flow.kickoff`` does: fresh (or restored) state, compile once, run on the scheduler.

Kept apart from ``flow.py`` so the facade is only its API. The flow's run id
is put in ``crewgraph._internal.run_context`` while the scheduler runs, so
crews kicked off inside methods -- in worker threads or on the loop -- stamp
their events with it.

A flow persisted on the class (``@persist`` or ``checkpoint = True``) whose
store keeps a run journal (:class:`~crewgraph.flow.persistence.SQLiteFlowPersistence`
does) also journals every method completion with its output, in the same
transaction as the state saved after it (:mod:`crewgraph.flow._journal`). A run
that was killed, failed or paused is then resumed -- ``kickoff(inputs={"id": ...})``
or ``Flow.resume(run_id, answer)`` -- by *replaying* the journal: the methods
that completed hand their stored outputs on instead of running again, and only
the interrupted ones run, from their start.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from crewgraph._internal.run_context import current_run_id, run_scope
from crewgraph._internal.usage_scope import UsageTotal, usage_scope
from crewgraph.errors import NodeExecutionError
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.flow_events import (
    FlowFailedEvent,
    FlowFinishedEvent,
    FlowPausedEvent,
    FlowStartedEvent,
)
from crewgraph.flow._journal import Journal, load_replay
from crewgraph.flow._spec import TRIGGER_PAYLOAD_KEYS
from crewgraph.graph.node import Node
from crewgraph.graph.run_state import RunState
from crewgraph.ids import new_run_id
from crewgraph.nodes.flow_method import FLOW_RUN_KEY, FlowRunState, Routed

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow

__all__ = ["kickoff_flow"]

_METHOD_KINDS = frozenset({"flow_method", "router"})
RESUMABLE = ("running", "failed", "paused")
"""Statuses of a journaled run that ``kickoff(inputs={"id": ...})`` continues."""


async def kickoff_flow(
    flow: Flow[Any], inputs: dict[str, Any] | None, limit: int | None, resume: dict[str, Any] | None = None
) -> Any:
    """Run the flow once; with tracing on (``flow.tracing`` / ``$CREWGRAPH_TRACING``) its events
    also become OpenTelemetry spans.

    The execution-boundary hooks (``@on(InterceptionPoint.EXECUTION_START)``...) run as on a
    crew: ``EXECUTION_START`` and ``INPUT`` on a new kickoff's inputs before anything starts
    (a rewrite lands in the state, ``FlowStartedEvent`` carries the rewritten inputs),
    ``OUTPUT`` on the result, ``EXECUTION_END`` once when it ends (``status="failed"`` and the
    error too). A run that pauses has not ended: its ``OUTPUT``/``EXECUTION_END`` come when
    its resume completes (a resume does not dispatch ``EXECUTION_START`` again)."""
    from crewgraph._internal.gc_scope import run_collector
    from crewgraph.observability.run_tracing import traced_run
    from crewgraph.runner.boundary_hooks import BoundaryHooks

    boundary = BoundaryHooks(flow=flow)
    if resume is None:
        inputs = await boundary.input(await boundary.start(dict(inputs or {})))
    try:
        with run_collector():  # compile and run: full collections spaced out (_internal/gc_scope)
            async with traced_run(flow, flow.tracing):
                result = await _kickoff_flow(flow, inputs, limit, resume)
    except BaseException as exc:
        await boundary.failed(exc)
        raise
    if _is_pause(result):
        return result
    result = await boundary.output(result)
    return await boundary.end(result)


def _recording(journal: Journal, writer: Any) -> Any:
    """``journal.record``, then CrewAI's checkpoint record of the method that finished."""

    def record(method: str, output: Any) -> None:
        journal.record(method, output)
        writer.write_checkpoint("method_execution_finished", method)

    return record


def _is_pause(result: Any) -> bool:
    from crewgraph.flow.async_feedback.types import HumanFeedbackPending
    from crewgraph.flow.human_feedback import PendingRun

    return isinstance(result, PendingRun | HumanFeedbackPending)


async def _kickoff_flow(
    flow: Flow[Any], inputs: dict[str, Any] | None, limit: int | None, resume: dict[str, Any] | None = None
) -> Any:
    inputs = dict(inputs or {})
    payload = None
    for key in TRIGGER_PAYLOAD_KEYS:
        if key in inputs:
            payload = inputs.pop(key)
    stores = flow._persistence_plan()
    flow._prepare_state(inputs, stores)
    journal_store = stores[""][0] if "" in stores and stores[""][0].supports_runs else None
    keeper: Any = None
    owns = False
    if journal_store is not None:  # only a journaled run is leased (sqlite loads only then)
        from crewgraph.flow._lease import take_flow_lease
    # A conversational turn is always a new run of the session, never a resume of the last one.
    if resume is None and journal_store is not None and "id" in inputs and not flow.__dict__.get("_fresh_run"):
        latest = journal_store.latest_run(str(inputs["id"]))
        if latest is not None and latest.get("status") in RESUMABLE:
            # Lease it first, then read it again: a holder we waited for may have moved it on.
            keeper, owns = await take_flow_lease(flow, journal_store, str(latest["run_id"]))
            if owns:
                latest = journal_store.load_run(str(latest["run_id"]))
                flow._prepare_state(inputs, stores)  # the state as that holder left it
            if latest is not None and latest.get("status") in RESUMABLE:
                resume = latest
            elif owns:
                keeper.release()
                keeper, owns = None, False
    if resume is not None:
        payload = resume.get("trigger_payload", payload)
    flow._trigger_payload = payload
    graph = flow.compile()
    if resume is not None:
        run_id = str(resume["run_id"])
    else:
        run_id = flow.__dict__.get("_keyed_run_id") or current_run_id() or new_run_id()
    if journal_store is not None and keeper is None:
        keeper, owns = await take_flow_lease(flow, journal_store, run_id)
    try:
        from crewgraph.flow._lease import fenced_journal

        with fenced_journal(journal_store, keeper, run_id, flow):  # a process that lost the lease writes nothing
            return await _execute(flow, inputs, limit, resume, stores, journal_store, graph, run_id, payload,
                                  keeper)
    finally:
        if owns:
            keeper.release()


async def _execute(
    flow: Flow[Any], inputs: dict[str, Any], limit: int | None, resume: dict[str, Any] | None,
    stores: dict[str, tuple[Any, bool]], journal_store: Any, graph: Any, run_id: str, payload: Any,
    keeper: Any = None,
) -> Any:
    """One run of the compiled ``graph`` as ``run_id`` (under its lease ``keeper`` when journaled)."""
    from crewgraph.runtime import Scheduler

    name = flow.flow_name
    frs = FlowRunState(flow_name=name, max_calls=limit, state_of=lambda: flow.state, trigger_payload=payload,
                        flow=flow)
    journal = Journal(flow, run_id, stores, journal_store, keeper=keeper)
    if journal_store is not None:
        frs.pausable = True
        if resume is not None:
            replay, prepared, seq = load_replay(journal_store, resume)
            frs.replay = {m: deque(v) for m, v in replay.items()}
            frs.prepared = prepared
            frs.answers = dict(resume.get("answers") or {})
            frs.prepared.update(resume.get("prepared_values") or {})
            journal.seq = seq
        journal.start(resume, payload)
    elif resume is not None:  # resumed from pending feedback, without a run journal
        frs.answers = dict(resume.get("answers") or {})
        frs.prepared = dict(resume.get("prepared_values") or {})
    from crewgraph.flow._checkpoint import checkpoint_writer

    writer = checkpoint_writer(flow, run_id)
    if stores:
        frs.journal = journal.record if writer is None else _recording(journal, writer)
    run_state = RunState()
    run_state.extras[FLOW_RUN_KEY] = frs
    outputs: list[Any] = []
    flow._method_outputs = outputs
    flow._run_id = run_id
    size = len(graph) + graph.digraph.number_of_edges()

    def on_node_finished(node: Node, output: Any) -> None:
        if node.kind in _METHOD_KINDS:
            outputs.append(output.label if isinstance(output, Routed) else output)

    def emit(event: Any) -> None:
        event.run_id = run_id
        crewgraph_event_bus.emit(flow, event)

    if crewgraph_event_bus.has_handlers(FlowStartedEvent):
        emit(FlowStartedEvent(flow_name=name, inputs=inputs or None))
    start = time.perf_counter()
    scheduler = Scheduler(
        graph,
        inputs=inputs,
        run_id=run_id,
        state=run_state,
        max_concurrency=flow.max_concurrency,
        # Backstop only: the per-method guard in the nodes fires first (a join runs
        # at most once per arrival, so executions <= limit * (nodes + edges)).
        max_executions=None if limit is None else limit * size,
        on_node_finished=on_node_finished,
        source=flow,
        executor=flow.executor,
        entry=resume.get("entry") if resume is not None else None,
    )
    usage = UsageTotal()
    flow._usage = usage
    try:
        with run_scope(run_id), usage_scope(usage):
            result_of_run = await scheduler.run()
    except NodeExecutionError as exc:
        journal.finish("failed", error=str(exc))
        if writer is not None:
            writer.write_checkpoint("method_execution_failed")
        cause = exc.__cause__
        if crewgraph_event_bus.has_handlers(FlowFailedEvent):
            emit(FlowFailedEvent(flow_name=name, error=cause if isinstance(cause, Exception) else exc))
            await crewgraph_event_bus.adrain()
        if exc.kind in _METHOD_KINDS and isinstance(cause, Exception):
            # Users catch what their method raised, as with CrewAI; say where it came from.
            cause.add_note(f"raised by method {exc.node_id!r} of flow {name!r} (run {run_id})")
            raise cause from None
        raise
    except BaseException as exc:
        journal.finish("failed", error=f"{type(exc).__name__}: {exc}")
        if writer is not None:
            writer.write_checkpoint("method_execution_failed")
        if crewgraph_event_bus.has_handlers(FlowFailedEvent):
            emit(FlowFailedEvent(flow_name=name, error=exc))
            await crewgraph_event_bus.adrain()
        raise
    finally:
        flow._drain_memory()
    flow._run_graph = result_of_run.run_graph
    if result_of_run.paused:
        pending = journal.pause(result_of_run.paused)
        if writer is not None:
            writer.write_checkpoint("flow_paused")
        if crewgraph_event_bus.has_handlers(FlowPausedEvent):
            emit(FlowPausedEvent(flow_name=name, questions=[q.question for q in pending.questions]))
        await crewgraph_event_bus.adrain()
        for paused in result_of_run.paused.values():
            feedback = paused.get("feedback_pending")
            if feedback is not None:
                # Paused by a feedback provider: CrewAI's kickoff returns its HumanFeedbackPending.
                feedback.run_id = run_id
                return feedback
        return pending
    result = outputs[-1] if outputs else None
    journal.finish("completed", output=result)
    if writer is not None:
        writer.write_checkpoint("flow_finished")
    if crewgraph_event_bus.has_handlers(FlowFinishedEvent):
        emit(FlowFinishedEvent(flow_name=name, result=result, state=_state_dict(flow.state),
                               duration_ms=(time.perf_counter() - start) * 1000))
    await crewgraph_event_bus.adrain()  # sync handlers run off the loop: let them finish
    return result


def _state_dict(state: Any) -> Any:
    """The flow state as a dict snapshot for ``FlowFinishedEvent`` (as CrewAI's)."""
    dump = getattr(state, "model_dump", None)
    if callable(dump):
        return dump()
    try:
        return dict(state)
    except (TypeError, ValueError):
        return state
