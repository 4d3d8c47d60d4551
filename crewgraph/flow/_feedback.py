"""How ``@human_feedback`` asks, pauses, and is resumed with CrewAI's API.

Asking: the decorator's provider, else ``flow_config.hitl_provider``, else the
console. A run resumed with the feedback (``resume`` below, or crewgraph's
``Flow.resume(run_id, feedback)``) finds it stored under the question's key
and asks nobody.

Pausing: a provider raises ``HumanFeedbackPending``; the state and context go
to the flow's store (``save_pending_feedback``) and the method's node returns a
pending result (the method's output kept with it), so the run stops there and
``kickoff`` returns the ``HumanFeedbackPending``.

Resuming (``Flow.from_pending(flow_id)`` then ``.resume(feedback)``): a run the
store journaled (crewgraph's SQLite store, a persisted flow) resumes through
its journal, so nothing that completed runs again and pending ``and_`` joins
are kept; otherwise the paused method is the run's only entry, with its kept
output and the feedback, and its listeners go on from there (CrewAI's resume).
"""

from __future__ import annotations

import base64
import pickle
from typing import TYPE_CHECKING, Any

from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.flow_events import HumanFeedbackReceivedEvent, HumanFeedbackRequestedEvent
from crewgraph.flow.async_feedback.types import HumanFeedbackPending, PendingFeedbackContext
from crewgraph.nodes.flow_pause import InputRequired, current_call

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.persistence import FlowPersistence

__all__ = ["ask_feedback", "feedback_received", "from_pending", "resume_feedback"]


def _question(context: PendingFeedbackContext) -> str:
    output = context.method_output
    return f"{context.message}\n\n{output}" if output is not None else context.message


def ask_feedback(flow: Flow[Any], context: PendingFeedbackContext, provider: Any) -> str:
    """The feedback on ``context`` (pausing the run when the provider raises HumanFeedbackPending)."""
    call = current_call()
    key = call.next_ask_key() if call is not None else f"{context.method_name}#1#0"
    if call is not None and key in call.answers:
        return call.answers[key]
    if provider is None:
        from crewgraph.flow.flow_config import flow_config
        from crewgraph.flow.human_feedback import _feedback_provider

        provider = _feedback_provider(flow_config.hitl_provider)
    if provider is None:
        from crewgraph.flow.async_feedback.providers import ConsoleProvider

        provider = ConsoleProvider()
    event = HumanFeedbackRequestedEvent(flow_name=flow.flow_name, method_name=context.method_name,
                                        output=context.method_output, message=context.message, emit=context.emit)
    if flow.run_id is not None:
        event.run_id = flow.run_id
    crewgraph_event_bus.emit(flow, event)
    try:
        feedback = provider.request_feedback(context, flow)
    except HumanFeedbackPending as pending:
        store = _store(flow)
        store.save_pending_feedback(pending.context.flow_id, pending.context, flow.state)
        raise InputRequired(
            _question(pending.context), key,
            extra={"output": pending.context.method_output, "feedback_pending": pending},
        ) from None
    except InputRequired as pause:
        pause.extra["output"] = context.method_output  # kept: the method does not run again
        raise
    return "" if feedback is None else str(feedback)


def feedback_received(flow: Flow[Any], result: Any) -> None:
    event = HumanFeedbackReceivedEvent(flow_name=flow.flow_name, method_name=result.method_name,
                                       feedback=result.feedback, outcome=result.outcome)
    if flow.run_id is not None:
        event.run_id = flow.run_id
    crewgraph_event_bus.emit(flow, event)


def _store(flow: Flow[Any]) -> FlowPersistence:
    from crewgraph.flow.persistence import resolve_class_store

    return resolve_class_store(type(flow), flow)


def from_pending(cls: type[Flow[Any]], flow_id: str, persistence: FlowPersistence | None, kwargs: dict[str, Any]) -> Flow[Any]:
    """A new instance of ``cls`` holding the state and context of ``flow_id``'s pending feedback."""
    from crewgraph.flow.persistence import resolve_class_store
    from crewgraph.flow.state import state_from_dict

    store = persistence or resolve_class_store(cls)
    loaded = store.load_pending_feedback(flow_id)
    if loaded is None:
        raise ValueError(
            f"no pending feedback for flow {flow_id!r} in {store!r}; pass the persistence the flow "
            "paused with: from_pending(flow_id, persistence)"
        )
    state, context = loaded
    flow = cls(persistence=persistence, **kwargs)
    template = flow._state_template()
    flow._state = state_from_dict(template if template is not None else flow._state, dict(state))
    flow._pending_context = context
    flow._pending_store = store
    return flow


def _b64(value: Any) -> str | None:
    try:
        return base64.b64encode(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")
    except Exception:
        return None


async def resume_feedback(flow: Flow[Any], feedback: str) -> Any:
    """Continue the run ``flow`` was loaded for (``from_pending``) with ``feedback``, under the
    lease on this pending feedback (``feedback:<flow_id>``; a journaled run's own lease is then
    taken too): a second process resuming the same feedback waits or gets RunLeasedError, and
    one that gets the lease after the first finds the feedback answered and runs nothing. A
    store without lease support says so once (UnleasedStoreWarning) and runs unguarded."""
    from crewgraph.flow._lease import take_feedback_lease

    context, store = flow._pending_context, flow._pending_store
    if context is None or store is None:
        raise ValueError(
            "this flow is not waiting for feedback: load it with MyFlow.from_pending(flow_id) first "
            "(or continue a paused run with Flow.resume(run_id, answer))"
        )
    feedback = "" if feedback is None else str(feedback)
    flow._pending_context = None
    keeper = await take_feedback_lease(flow, store, context.flow_id)
    try:
        if keeper is not None and store.load_pending_feedback(context.flow_id) is None:
            raise ValueError(f"the pending feedback of flow {context.flow_id!r} was already resumed by another "
                             "process; nothing runs again")
        result = await _resume(flow, store, context, feedback)
        if not isinstance(result, HumanFeedbackPending):  # paused for feedback again: that is the pending one now
            if keeper is not None:
                keeper.verify()  # fenced: a process that lost the lease leaves the record to the new holder
            store.clear_pending_feedback(context.flow_id)
        return result
    finally:
        if keeper is not None:
            keeper.release()


async def _resume(flow: Flow[Any], store: FlowPersistence, context: PendingFeedbackContext, feedback: str) -> Any:
    from crewgraph.flow._resume import resume_run
    from crewgraph.flow._run import kickoff_flow
    from crewgraph.ids import new_run_id

    method = context.method_name
    latest = store.latest_run(context.flow_id) if store.supports_runs else None
    waiting = [p for p in (latest or {}).get("pending") or [] if p.get("method") == method]
    if latest is not None and latest.get("status") == "paused" and waiting:
        answers = {str(p["key"]): feedback for p in waiting}
        return await resume_run(flow, None, str(latest["run_id"]), answers, store, None)
    key = f"{method}#1#0"  # the paused method is the run's first execution of it
    output = _b64(context.method_output)
    record: dict[str, Any] = {
        "run_id": new_run_id(),
        "flow_uuid": context.flow_id,
        "answers": {key: feedback},
        "entry": [method],
        "prepared": [{"key": key, "output": output}] if output is not None else [],
        "prepared_values": {f"{method}#1": context.method_output},
    }
    return await kickoff_flow(flow, {"id": context.flow_id}, flow.max_method_calls, resume=record)
