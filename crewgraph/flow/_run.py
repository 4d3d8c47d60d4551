"""What ``Flow.kickoff`` does: fresh (or restored) state, compile once, run on the scheduler.

Kept apart from ``flow.py`` so the facade is only its API. The flow's run id
is put in ``crewgraph._internal.run_context`` while the scheduler runs, so
crews kicked off inside methods -- in worker threads or on the loop -- stamp
their events with it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from crewgraph._internal.run_context import current_run_id, run_scope
from crewgraph._internal.usage_scope import UsageTotal, usage_scope
from crewgraph.errors import NodeExecutionError
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.flow_events import FlowFinishedEvent, FlowStartedEvent
from crewgraph.flow._spec import TRIGGER_PAYLOAD_KEYS
from crewgraph.graph.node import Node
from crewgraph.graph.run_state import RunState
from crewgraph.ids import new_run_id
from crewgraph.nodes.flow_method import FLOW_RUN_KEY, FlowRunState, Routed

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow

__all__ = ["kickoff_flow"]

_METHOD_KINDS = frozenset({"flow_method", "router"})


async def kickoff_flow(flow: Flow[Any], inputs: dict[str, Any] | None, limit: int | None) -> Any:
    from crewgraph.runtime import Scheduler

    inputs = dict(inputs or {})
    payload = None
    for key in TRIGGER_PAYLOAD_KEYS:
        if key in inputs:
            payload = inputs.pop(key)
    flow._trigger_payload = payload
    stores = flow._persistence_plan()
    flow._prepare_state(inputs, stores)
    graph = flow.compile()
    name = flow.flow_name
    run_id = current_run_id() or new_run_id()
    run_state = RunState()
    run_state.extras[FLOW_RUN_KEY] = FlowRunState(
        flow_name=name, max_calls=limit, state_of=lambda: flow.state, trigger_payload=payload
    )
    outputs: list[Any] = []
    flow._method_outputs = outputs
    flow._run_id = run_id
    size = len(graph) + graph.digraph.number_of_edges()

    def on_node_finished(node: Node, output: Any) -> None:
        if node.kind not in _METHOD_KINDS:
            return
        outputs.append(output.label if isinstance(output, Routed) else output)
        target = stores.get(node.id) or stores.get("")
        if target is not None:
            from crewgraph.flow.persistence import save
            from crewgraph.flow.state import state_id

            save(target[0], state_id(flow.state), node.id, flow.state, target[1])

    def emit(event: Any) -> None:
        event.run_id = run_id
        crewgraph_event_bus.emit(flow, event)

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
    )
    usage = UsageTotal()
    flow._usage = usage
    try:
        with run_scope(run_id), usage_scope(usage):
            result_of_run = await scheduler.run()
    except NodeExecutionError as exc:
        cause = exc.__cause__
        if exc.kind in _METHOD_KINDS and isinstance(cause, Exception):
            # Users catch what their method raised, as with CrewAI; say where it came from.
            cause.add_note(f"raised by method {exc.node_id!r} of flow {name!r} (run {run_id})")
            raise cause from None
        raise
    finally:
        flow._drain_memory()
    flow._run_graph = result_of_run.run_graph
    result = outputs[-1] if outputs else None
    emit(FlowFinishedEvent(flow_name=name, result=result, duration_ms=(time.perf_counter() - start) * 1000))
    return result

