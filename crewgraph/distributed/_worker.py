"""What runs on a Ray worker: one node step, or one flow method call, and what comes back.

The worker rebuilds a :class:`~crewgraph.graph.context.NodeContext` from the
payload, runs the step on a fresh event loop, and sends back its
``NodeResult`` (or its exception) with every event it emitted, in order, the
stream chunks of a streaming run, new tool-cache entries and the tokens its
model calls spent (for a flow's ``usage_metrics``). Nothing it does on the
worker is reported there: the driver re-emits it all.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from crewgraph.distributed._cache_share import new_entries

__all__ = [
    "CallPayload", "CallReply", "StepPayload", "StepReply", "TraceCall", "one_step", "run_remote_call",
    "run_remote_step",
]


@dataclass
class StepPayload:
    """One step of one node, with the slice of the run it reads."""

    node: Any
    run_id: str
    inputs: dict[str, Any]
    upstream: dict[str, Any]
    results: dict[str, Any]
    llm: Any
    memory: Any
    tool_cache: dict[Any, Any]
    """The run's tool-cache entries the step starts with (empty when ``cache`` names them)."""
    limiters: dict[str, Any]
    extras: dict[str, Any]
    streaming: bool
    resume: Any
    spawned: dict[str, Any]
    attempt: int
    trigger: str | None
    global_hooks: dict[str, list[Any]] = field(default_factory=dict)
    """The driver's global execution hooks (registered by decorators there), by kind."""
    shared: list[tuple[str, str]] = field(default_factory=list)
    """(host actor, pool key) of each shared default-context pool the step reads: their texts
    join ``results`` here (see ``_context_share``; fetched while the node was unpickled)."""
    cache: Any = None
    """The run's tool cache as a log: its newest entries and where the rest are (a
    ``_cache_share.CacheRef``; None: ``tool_cache`` is all of it)."""
    listened: Any = None
    """Who listens on the driver (an ``events._listened.ListenedKinds``): the step builds only
    the events someone there receives. None: every event is built and sent back."""


@dataclass
class StepReply:
    result: Any = None
    error: BaseException | None = None
    events: list[Any] = field(default_factory=list)
    chunks: list[Any] = field(default_factory=list)
    tool_cache: dict[Any, Any] = field(default_factory=dict)
    usage: Any = None
    tool_uses: int = 0
    """How many uses of the node's tool the step counted (``max_usage_count`` is kept on the driver)."""
    pid: int = 0
    node_id: str = ""
    """The node this step was of (a task's chain run as one Ray task replies once per step)."""
    stopped: bool = False
    """A chain's marker, not a step: no further step of ``node_id`` comes from this Ray task."""


@dataclass
class CallPayload:
    """One call of a flow method (a bound method: its flow, with the state, travels with it)."""

    fn: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    run_id: str
    global_hooks: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class CallReply:
    value: Any = None
    error: BaseException | None = None
    state_changes: dict[str, Any] = field(default_factory=dict)
    state_removed: list[str] = field(default_factory=list)
    usage: Any = None
    pid: int = 0


class TraceCall(NamedTuple):
    """One call of the run graph's model-call recorder made on a worker, replayed on the driver
    (in order with the events: a call's start and end may come one each way)."""

    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _TraceLog:
    """The worker's stand-in for the driver's ``LLMCallTracer``: ``call_llm`` records a call
    here when no handler wants its event, and the driver's recorder gets the same calls."""

    __slots__ = ("_into",)

    def __init__(self, into: list[Any]) -> None:
        self._into = into

    def started(self, *args: Any, **kwargs: Any) -> None:
        self._into.append(TraceCall("started", args, kwargs))

    def completed(self, *args: Any, **kwargs: Any) -> None:
        self._into.append(TraceCall("completed", args, kwargs))

    def failed(self, *args: Any, **kwargs: Any) -> None:
        self._into.append(TraceCall("failed", args, kwargs))

    def retried(self, *args: Any, **kwargs: Any) -> None:
        self._into.append(TraceCall("retried", args, kwargs))


class _Collector:
    """The worker's ``ctx.emit``: keeps the events for the driver, building only those the
    driver said someone listens to (``listened``; None: all of them)."""

    __slots__ = ("events", "listened", "llm_tracer")

    def __init__(self, listened: Any = None) -> None:
        self.events: list[Any] = []
        self.listened = listened
        self.llm_tracer: _TraceLog | None = (
            _TraceLog(self.events) if listened is not None and listened.traced else None)

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def wants(self, event_type: Any) -> bool:
        listened = self.listened
        return True if listened is None else bool(listened.wants(event_type))

    def listens(self, event_type: Any) -> bool:
        listened = self.listened
        return True if listened is None else bool(listened.listens(event_type))


_LOOP: asyncio.AbstractEventLoop | None = None


def _loop() -> asyncio.AbstractEventLoop:
    """This worker's event loop, kept between steps: model clients keep their connections
    (a Ray task runs on the worker's main thread, one at a time)."""
    global _LOOP
    if _LOOP is None or _LOOP.is_closed():
        _LOOP = asyncio.new_event_loop()
    if _LOOP.is_running():
        # Left "running" by a task Ray interrupted (``ray.cancel`` raises KeyboardInterrupt in
        # the worker, and uvloop may not unwind): this thread is not inside it, so it is dead.
        _LOOP = asyncio.new_event_loop()
    return _LOOP


def _prepare_worker() -> None:
    from crewgraph.distributed._limits import install_endpoint_limits

    install_endpoint_limits()


def run_remote_step(data: bytes, *waits: Any) -> bytes:
    """The Ray task: run one step described by ``data`` (a pickled StepPayload). ``waits``:
    the host's appends of shared context (Ray starts the task once they are done)."""
    _prepare_worker()
    from crewgraph._internal.run_context import run_scope

    step: StepPayload = load_step(data)
    shared = _shared_state(step)
    start = len(shared.tool_cache)  # what the step adds comes after
    try:
        with run_scope(step.run_id), _driver_hooks(step.global_hooks):
            reply = _loop().run_until_complete(
                one_step(step, shared, step.node, upstream=step.upstream, resume=step.resume,
                         spawned=step.spawned, attempt=step.attempt, trigger=step.trigger,
                         results=results_of(step)))
    finally:
        _drain(step.memory)
    reply.tool_cache = new_entries(shared.tool_cache, start)
    return _dumps_reply(reply)


def load_step(data: bytes) -> Any:
    """Unpickle what a driver sent (the tools' copies of the previous step let go first)."""
    from crewgraph.distributed._pickling import loads
    from crewgraph.tools._cache import forget_sent

    forget_sent()
    return loads(data)


def _shared_state(step: StepPayload) -> Any:
    """The run state the steps of one Ray task share (their own copies of the driver's)."""
    from crewgraph.graph.run_state import RunState

    extras = dict(step.extras)
    if step.shared:
        from crewgraph.distributed._context_share import worker_pool
        from crewgraph.nodes._context import PREFIX_CACHE_KEY

        # this worker's built text of the pool: the run's next task here extends it
        extras[PREFIX_CACHE_KEY] = worker_pool(*step.shared[0]).built
    if step.cache is not None:
        from crewgraph.distributed._cache_share import worker_cache

        cache = worker_cache(step.cache)  # this worker's copy of the run's cache, brought up to date
    else:
        cache = dict(step.tool_cache)
    return RunState(tool_cache=cache, limiters=dict(step.limiters), extras=extras)


def results_of(step: StepPayload, own: dict[str, Any] | None = None) -> Any:
    """The step's ``ctx.results``: what the driver sent (``own``: a copy of it), then the
    shared context texts of this worker's pools."""
    results = step.results if own is None else own
    if not step.shared:
        return results
    from collections import ChainMap

    from crewgraph.distributed._context_share import SharedTexts, worker_pool

    pools = [worker_pool(host, key).texts for host, key in step.shared]
    return SharedTexts(results, pools[0] if len(pools) == 1 else ChainMap(*pools))


async def one_step(
    step: StepPayload,
    shared: Any,
    node: Any,
    *,
    upstream: dict[str, Any],
    resume: Any,
    spawned: dict[str, Any],
    attempt: int,
    trigger: str | None,
    results: dict[str, Any] | None = None,
) -> StepReply:
    """Run one step of ``node`` here, as the driver's scheduler would have called it: its
    events, stream chunks, tokens and tool uses are kept in the reply, its error too."""
    from crewgraph._internal.usage_scope import UsageTotal, usage_scope
    from crewgraph.graph.context import NodeContext
    from crewgraph.graph.run_state import RunState

    emit = _Collector(step.listened)
    chunks: list[Any] = []
    state = RunState(tool_cache=shared.tool_cache, limiters=shared.limiters, extras=shared.extras,
                     lock=shared.lock)
    if step.streaming:
        state.stream = chunks.append
    ctx = NodeContext(
        run_id=step.run_id,
        node_id=node.id,
        inputs=step.inputs,
        upstream=upstream,
        results=MappingProxyType(step.results if results is None else results),
        llm=step.llm,
        memory=step.memory,
        emit=emit,
        state=state,
        resume=resume,
        spawned=spawned,
        attempt=attempt,
        trigger=trigger,
    )
    reply = StepReply(pid=os.getpid(), node_id=node.id)
    tool = getattr(node, "tool", None)
    uses_before = int(getattr(tool, "current_usage_count", 0) or 0)
    total = UsageTotal()
    try:
        with usage_scope(total):
            reply.result = await node.run(ctx)
    except BaseException as exc:
        reply.error = exc
    reply.events = emit.events
    reply.chunks = chunks
    reply.usage = total.total()
    reply.tool_uses = int(getattr(tool, "current_usage_count", 0) or 0) - uses_before
    return reply


def run_remote_call(data: bytes) -> bytes:
    """The Ray task: call one flow method; its changes to ``self.state`` go back with the value."""
    _prepare_worker()
    from crewgraph._internal.run_context import run_scope
    from crewgraph._internal.usage_scope import UsageTotal, usage_scope
    from crewgraph.distributed._pickling import loads

    call: CallPayload = loads(data)
    owner = getattr(call.fn, "__self__", None)
    before = _snapshot(getattr(owner, "state", None))
    reply = CallReply(pid=os.getpid())
    total = UsageTotal()
    try:
        with run_scope(call.run_id), usage_scope(total), _driver_hooks(call.global_hooks):
            value = call.fn(*call.args, **call.kwargs)
            if inspect.isawaitable(value):
                value = _loop().run_until_complete(_awaited(value))
        reply.value = value
    except BaseException as exc:
        reply.error = exc
    after = _snapshot(getattr(owner, "state", None))
    if before is not None and after is not None:
        reply.state_changes = {k: v for k, v in after.items() if k not in before or not _same(before[k], v)}
        reply.state_removed = [k for k in before if k not in after]
    reply.usage = total.total()
    return _dumps_reply(reply)


@contextmanager
def _driver_hooks(hooks: dict[str, list[Any]]) -> Iterator[None]:
    """For one step, this worker's global hooks are the driver's (a worker runs one task at a time)."""
    if not hooks:
        yield
        return
    from crewgraph.hooks import _registry

    saved = {kind: _registry.listed(kind) for kind in _registry.KINDS}
    with _registry._lock:
        for kind in _registry.KINDS:
            _registry._global[kind][:] = list(hooks.get(kind, ()))
    try:
        yield
    finally:
        with _registry._lock:
            for kind, listed in saved.items():
                _registry._global[kind][:] = listed


async def _awaited(value: Any) -> Any:
    return await value


def _snapshot(state: Any) -> dict[str, Any] | None:
    """The state's fields (a deep copy, so later changes in place are seen as changes)."""
    if state is None:
        return None
    fields = getattr(type(state), "model_fields", None)
    if fields is not None:
        items = {name: getattr(state, name) for name in fields}
        items.update(getattr(state, "__pydantic_extra__", None) or {})
    elif isinstance(state, dict):
        items = dict(state)
    else:
        return None
    try:
        return copy.deepcopy(items)
    except Exception:
        return dict(items)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _drain(memory: Any) -> None:
    """Background memory writes of this step finish before the worker reports it done."""
    drain = getattr(memory, "drain_writes", None)
    if callable(drain):
        try:
            drain()
        except Exception:
            pass


def _dumps_reply(reply: Any) -> bytes:
    from crewgraph.distributed._pickling import dumps_reply

    return dumps_reply(reply)
