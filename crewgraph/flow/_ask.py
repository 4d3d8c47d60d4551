"""``Flow.ask``: ask a person from inside a method, as CrewAI does.

The flow's input provider answers (see :mod:`crewgraph.flow.input_provider`).
Around the call: ``FlowInputRequestedEvent`` before, ``FlowInputReceivedEvent``
after; the state is saved to the flow's persistence first (``_ask_checkpoint``:
what was gathered survives a crash while waiting); every exchange goes into
the flow's input history. ``timeout`` bounds the wait; no answer in time, a
provider that fails, or an ``InputResponse(text=None)`` all return None.

A run paused by a question (crewgraph's ``PersistedInputProvider``) and resumed
with the answer finds it here: the n-th ``ask`` of a method execution returns
the n-th stored answer without asking anyone again.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any

from crewgraph.errors import ConfigurationError
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.flow_events import FlowInputReceivedEvent, FlowInputRequestedEvent
from crewgraph.flow.async_feedback.types import HumanFeedbackPending
from crewgraph.flow.input_provider import InputResponse, resolve_input_provider, takes_metadata
from crewgraph.nodes.flow_pause import InputRequired, current_call

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow

__all__ = ["ask"]

logger = logging.getLogger("crewgraph.flow")

_PASS_THROUGH = (InputRequired, HumanFeedbackPending, ConfigurationError)
"""Exceptions that pause the run (or say it cannot pause): never turned into a None answer."""


class _TimedOut:
    pass


_TIMED_OUT = _TimedOut()


def _invoke(provider: Any, message: str, flow: Any, metadata: dict[str, Any] | None) -> Any:
    method = provider.request_input
    out = method(message, flow, metadata) if takes_metadata(method) else method(message, flow)
    if inspect.isawaitable(out):
        async def wait() -> Any:
            return await out

        out = asyncio.run(wait())  # always in a thread without a running loop (see _call)
    return out


def _call(provider: Any, message: str, flow: Any, metadata: dict[str, Any] | None, timeout: float | None) -> Any:
    method = provider.request_input
    on_loop = _loop_running()
    if timeout is None and not inspect.iscoroutinefunction(method) and not on_loop:
        return _invoke(provider, message, flow, metadata)
    # In a helper thread: a bounded wait, an async provider, or an async flow method
    # (which calls ask on the event loop's thread). The context goes along, so a
    # pausing provider still sees which method execution asks.
    box: dict[str, Any] = {}
    done = threading.Event()
    context = contextvars.copy_context()

    def work() -> None:
        try:
            box["value"] = context.run(_invoke, provider, message, flow, metadata)
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="crewgraph-ask", daemon=True).start()
    if not done.wait(timeout):
        return _TIMED_OUT
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _checkpoint(flow: Flow[Any]) -> None:
    """Save the state before waiting (CrewAI's ``_ask_checkpoint``), when the flow persists."""
    store = flow._persistence
    if store is None and flow._is_persisted():
        from crewgraph.flow.persistence import resolve_class_store

        store = resolve_class_store(type(flow), flow)
    if store is None:
        return
    try:
        store.save_state(flow.flow_id, "_ask_checkpoint", flow.state)
    except Exception as exc:
        logger.warning("flow %r: could not save the state before asking (%s)", flow.flow_name, exc)


def _emit(flow: Flow[Any], event: Any) -> None:
    if flow._run_id is not None:
        event.run_id = flow._run_id
    crewgraph_event_bus.emit(flow, event)


def ask(flow: Flow[Any], message: str, timeout: float | None, metadata: dict[str, Any] | None) -> str | None:
    call = current_call()
    method = call.method if call is not None else None
    key = call.next_ask_key() if call is not None else None
    if call is not None and key in call.answers:
        text: str | None = call.answers[key]  # the answer this run was resumed with
        flow._record_input(message, text, method, metadata, None)
        return text
    provider = resolve_input_provider(flow)
    _emit(flow, FlowInputRequestedEvent(flow_name=flow.flow_name, method_name=method, message=message,
                                        metadata=metadata))
    if not getattr(provider, "pauses", False):
        _checkpoint(flow)
    if call is not None:
        call.asking = key
    try:
        raw = _call(provider, message, flow, metadata, timeout)
    except _PASS_THROUGH:
        raise
    except Exception as exc:
        logger.warning("flow %r: input provider %r failed (%s: %s); ask() returns None",
                       flow.flow_name, provider, type(exc).__name__, exc)
        raw = None
    finally:
        if call is not None:
            call.asking = None
    response_metadata = None
    if raw is _TIMED_OUT:
        text = None
    elif isinstance(raw, InputResponse):
        text, response_metadata = raw.text, raw.metadata
    else:
        text = None if raw is None else str(raw)
    flow._record_input(message, text, method, metadata, response_metadata)
    _emit(flow, FlowInputReceivedEvent(flow_name=flow.flow_name, method_name=method, message=message,
                                       response=text, metadata=metadata, response_metadata=response_metadata))
    return text


def history_entry(message: str, response: str | None, method: str | None, metadata: dict[str, Any] | None,
                  response_metadata: dict[str, Any] | None) -> dict[str, Any]:
    """One exchange of the flow's input history (CrewAI's keys)."""
    return {
        "message": message,
        "response": response,
        "method_name": method,
        "timestamp": datetime.now(),
        "metadata": metadata,
        "response_metadata": response_metadata,
    }
