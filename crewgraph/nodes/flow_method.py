"""``flow_method`` node: one method of a Flow, called with its trigger's output.

The node holds a bound callable (the method of one flow instance), never the
Flow class: the compiled graph depends on the facade, not the other way
round. Sync methods run in a worker thread (the loop's long-lived workers of
:mod:`crewgraph._internal.threads`, which keep ``asyncio.to_thread``'s semantics
for less) so that listeners fired by the same method really overlap; async
methods are awaited on the scheduler's loop. Both copy the caller's context
variables, which is how a crew kicked off inside a method learns the flow's run id.

Per-kickoff facts that every flow node shares (the loop guard's counters,
which ``or_`` joins have fired) live in a :class:`FlowRunState` stored in
``ctx.state.extras`` -- nodes are immutable and outlive a run.
"""

from __future__ import annotations

import copy
import time
from collections import Counter, deque
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any, ClassVar

from crewgraph._internal import execution_vars
from crewgraph._internal.threads import in_thread
from crewgraph.errors import LoopGuardError
from crewgraph.events.base import BaseEvent
from crewgraph.events.flow_events import (
    MethodExecutionFailedEvent,
    MethodExecutionFinishedEvent,
    MethodExecutionStartedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.hooks.flow_steps import flow_post_step, flow_pre_step
from crewgraph.nodes.flow_pause import CURRENT_CALL, RERUN, InputRequired, MethodCall

__all__ = [
    "FLOW_RUN_KEY",
    "FlowMethodNode",
    "FlowRunState",
    "Routed",
    "flow_run_state",
    "trigger_payload",
    "wants",
]

FLOW_RUN_KEY = "crewgraph.flow"
"""Key of the :class:`FlowRunState` in ``RunState.extras``."""


@dataclass
class FlowRunState:
    """What the flow nodes of one kickoff share.

    ``max_calls`` bounds how often any one method (or router) may run in the
    kickoff -- the loop guard: loops are legal through router labels, endless
    ones are not, and a big acyclic flow never comes near it (as CrewAI's
    ``max_method_calls``). ``None`` means no bound. ``or_fired`` holds the
    ``or_`` joins that have already let a method trigger through.
    """

    flow_name: str = "flow"
    max_calls: int | None = None
    calls: int = 0
    per_method: Counter[str] = field(default_factory=Counter)
    or_fired: set[str] = field(default_factory=set)
    and_arrived: dict[str, set[str]] = field(default_factory=dict)
    """Inputs that have arrived at each ``and_`` join nested in an ``or_`` since it last fired."""
    trigger_payload: Any = None
    replay: dict[str, deque[Any]] = field(default_factory=dict)
    """Outputs of executions a resumed run already completed, per method, in order:
    each execution of that method takes the next one instead of running."""
    journal: Callable[[str, Any], None] | None = None
    """Called with ``(method, output)`` after each fresh execution (before successors
    start): where a persisted flow saves its state and journals the completion."""
    answers: dict[str, str] = field(default_factory=dict)
    prepared: dict[str, Any] = field(default_factory=dict)
    pausable: bool = False
    """Whether a method may pause for input (the run is persisted, so it can resume)."""
    state_of: Callable[[], Any] | None = None
    """Returns the flow's current state (for the method events' ``state`` copies)."""
    flow: Any = None
    """The Flow instance being run (``ctx.flow`` of the method step hooks)."""

    def state_copy(self) -> dict[str, Any] | None:
        """The flow state as a dict snapshot for an event, as CrewAI's method events carry it
        (a structured state is dumped, so handlers never hold the live model nor see later
        changes)."""
        if self.state_of is None:
            return None
        state = self.state_of()
        dump = getattr(state, "model_dump", None)
        if callable(dump):
            return dict(dump())
        try:
            return dict(copy.deepcopy(state))
        except Exception:  # an uncopyable value inside: a shallow copy still freezes the keys
            return dict(state)

    def count(self, method: str) -> None:
        """Record one execution of ``method``; raise LoopGuardError past the bound."""
        self.calls += 1
        n = self.per_method[method] = self.per_method[method] + 1
        if self.max_calls is not None and n > self.max_calls:
            loop = ", ".join(f"{name!r} x{k}" for name, k in self.per_method.most_common(4))
            raise LoopGuardError(
                f"flow {self.flow_name!r}: method {method!r} would run {n} times, more than "
                f"max_method_calls={self.max_calls} allows (runs so far: {loop}). A router loop never "
                "ended: make the router leave the loop, or raise the bound with the class "
                "attribute `max_method_calls` or `kickoff(max_method_calls=...)`."
            )


def _flow_scope(run_id: str | None, flow: Any, method: str) -> list[tuple[ContextVar[Any], Token[Any]]]:
    """Set CrewAI's flow context variables for one method call (``crewgraph.context``'s
    ``ExecutionContext`` reads them); the tokens undo it."""
    state = getattr(flow, "state", None) if flow is not None else None
    flow_id = state.get("id") if isinstance(state, dict) else getattr(state, "id", None)
    return [
        (execution_vars.current_flow_request_id, execution_vars.current_flow_request_id.set(run_id)),
        (execution_vars.current_flow_id,
         execution_vars.current_flow_id.set(None if flow_id is None else str(flow_id))),
        (execution_vars.current_flow_method_name, execution_vars.current_flow_method_name.set(method)),
    ]


def _call_with(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return fn(*args, **kwargs)


def flow_run_state(ctx: NodeContext) -> FlowRunState:
    """The run's FlowRunState (created on first use, e.g. when a node runs alone in a test)."""
    extras = ctx.state.extras
    frs = extras.get(FLOW_RUN_KEY)
    if frs is None:
        frs = extras.setdefault(FLOW_RUN_KEY, FlowRunState())
    return frs


def wants(ctx: NodeContext, event_type: type[BaseEvent]) -> bool:
    """Whether ``ctx.emit`` would deliver this event type (the scheduler's emitter can
    tell; building an event nobody receives is most of a trivial method's cost)."""
    check = getattr(ctx.emit, "wants", None)
    return True if check is None else bool(check(event_type))


@dataclass(frozen=True, slots=True)
class Routed:
    """A router's output: the label it chose and the value it was triggered with.

    Listeners of the label receive ``payload`` (as in CrewAI, a router passes
    its trigger's output on); listeners of the router method itself receive
    ``label``. ``str()`` is the label, which is what logs and previews show.
    """

    label: str | None
    payload: Any = None

    def __str__(self) -> str:
        return "" if self.label is None else self.label


def trigger_payload(ctx: NodeContext, label_preds: frozenset[str]) -> tuple[bool, Any]:
    """``(triggered, value)``: the output of the predecessor whose firing ran this node.

    ``triggered`` is False for a start method run at kickoff. A router reached
    through one of its labels (``label_preds``) hands on its payload; reached
    by its method name, its label.
    """
    trigger = ctx.trigger
    if trigger is None:
        return False, None
    value = ctx.upstream.get(trigger)
    if isinstance(value, Routed):
        return True, (value.payload if trigger in label_preds else value.label)
    return True, value


@dataclass(frozen=True, kw_only=True)
class FlowMethodNode(Node):
    """Calls ``fn`` (a bound flow method) with its trigger's output when it takes a parameter."""

    kind: ClassVar[str] = "flow_method"

    method: str
    fn: Callable[..., Any]
    flow_name: str = "flow"
    is_async: bool = False
    takes_arg: bool = False
    arg_optional: bool = False
    label_preds: frozenset[str] = frozenset()
    payload_param: str | None = None
    """The parameter (``crewai_trigger_payload``...) that receives the kickoff's trigger data."""

    async def run(self, ctx: NodeContext) -> NodeResult:
        frs = flow_run_state(ctx)
        frs.count(self.method)
        triggered, payload = trigger_payload(ctx, self.label_preds)
        queued = frs.replay.get(self.method)
        if queued and queued[0] is not RERUN:
            # Completed before the run was interrupted: its output, not a second run.
            result = self._result(queued.popleft(), payload, triggered)
            result.info["replayed"] = True
            return result
        if queued:
            queued.popleft()  # completed, but its output could not be stored: run it again
        if wants(ctx, MethodExecutionStartedEvent):
            params = {"_0": payload} if self.takes_arg and triggered else {}
            ctx.emit(
                MethodExecutionStartedEvent(
                    flow_name=self.flow_name, method_name=self.method, state=frs.state_copy(), params=params
                )
            )
        start = time.perf_counter()
        extra = {self.payload_param: frs.trigger_payload} if self.payload_param and not triggered else {}
        call = MethodCall(
            self.method, frs.per_method[self.method], frs.answers, frs.prepared, pausable=frs.pausable
        )
        token = CURRENT_CALL.set(call)
        extras = ctx.state.extras
        flow = frs.flow if frs.flow is not None else getattr(self.fn, "__self__", None)
        scope = _flow_scope(ctx.run_id or None, flow, self.method)
        try:
            args, kwargs = await flow_pre_step(extras, flow=flow, method=self.method,
                                               args=self._args(triggered, payload, extra), kwargs=extra)
            value = await self._invoke(args, kwargs)
            value = await flow_post_step(extras, flow=flow, method=self.method, result=value)
        except InputRequired as pause:
            # Pausing is a node outcome: no output, no successors; the run is saved as paused.
            return NodeResult(pending={"method": self.method, "key": pause.key, "question": pause.question,
                                       **pause.extra})
        except Exception as exc:
            ctx.emit(
                MethodExecutionFailedEvent(
                    flow_name=self.flow_name, method_name=self.method, error=f"{type(exc).__name__}: {exc}"
                )
            )
            raise
        finally:
            CURRENT_CALL.reset(token)
            for var, var_token in scope:
                var.reset(var_token)
        result = self._result(value, payload, triggered)
        if frs.journal is not None:
            frs.journal(self.method, value)
        if wants(ctx, MethodExecutionFinishedEvent):
            ctx.emit(
                MethodExecutionFinishedEvent(
                    flow_name=self.flow_name,
                    method_name=self.method,
                    result=self._reported(result),
                    state=frs.state_copy(),
                    duration_ms=(time.perf_counter() - start) * 1000,
                )
            )
        return result

    def _args(self, triggered: bool, payload: Any, extra: dict[str, Any]) -> tuple[Any, ...]:
        # A start method run at kickoff has no trigger: it is called without
        # an argument (a required parameter then gets None).
        if not self.takes_arg or (not triggered and (self.arg_optional or extra)):
            return ()
        return (payload,)

    async def _invoke(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.is_async:
            return await self.fn(*args, **kwargs)
        if kwargs:
            return await in_thread(_call_with, self.fn, args, kwargs)
        return await in_thread(self.fn, *args)

    def _result(self, value: Any, payload: Any, triggered: bool = True) -> NodeResult:
        """The node's result for the method's return ``value`` (``payload``: what triggered
        it, ``triggered`` False for a start method run at kickoff)."""
        return NodeResult(output=value)

    def _reported(self, result: NodeResult) -> Any:
        return result.output

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(method=self.method, flow=self.flow_name, is_async=self.is_async, takes_arg=self.takes_arg)
        return d
