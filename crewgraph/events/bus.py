"""The process-wide event bus: typed events in, sync and async handlers out.

Handlers are registered per event class and also receive instances of its
subclasses. A handler that raises is logged and never breaks the run that
emitted the event. Async handlers run on the caller's event loop when there
is one, else on a private background loop.

Sync handlers never run on a scheduler's thread (one running an event loop):
a handler sleeping 5 s there stalled every node of the run. Events emitted
from such a thread are queued to one dispatcher thread, which delivers them
*in emission order* (each event to its handlers in registration/dependency
order). The dispatcher waits for an event's handlers at most
:data:`ORDERED_WAIT` seconds before it moves on to the next event on another
worker thread, so a slow handler delays later events by that much, not by its
whole run (and may then overlap with itself). Emitting from any other thread
(plain sync code, a worker thread) delivers before ``emit`` returns, after
anything queued before it. ``drain()``/``adrain()`` wait (bounded) until
everything emitted so far has been handled; a crew or flow kickoff drains
before it returns, so handlers have seen every event of the run when
``kickoff()`` returns. A sync handler that depends on an async one runs in a
worker thread when its turn comes.

Async handlers run on the loop, watched by :mod:`crewgraph.events._loop_guard`: one found
blocking it (``time.sleep`` inside ``async def``) is named in a warning and then runs in a
thread of its own.

Internal listeners that keep run bookkeeping and must see an event before
the emitter goes on register with ``inline=True``: they run where the event
is emitted, and must be quick.

``emit`` returns a ``concurrent.futures.Future`` that completes once the
event's async handlers have run (at once when it has none); ``aemit`` is the
awaitable form for async handlers only (as CrewAI's: sync handlers are not
called by it). A handler registered with ``depends_on=Depends(other)`` (or
a list of them) runs after ``other`` for the same event -- a sync handler
that depends on an async one is deferred with it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import inspect
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from crewgraph.events._lineage import link
from crewgraph.events._loop_guard import LoopGuard
from crewgraph.events.base import BaseEvent

__all__ = ["CircularDependencyError", "CrewGraphEventsBus", "Depends", "EventHandler", "crewgraph_event_bus"]

logger = logging.getLogger("crewgraph.events")

EventHandler = Callable[[Any, Any], Any]
E = TypeVar("E", bound=BaseEvent)


class CircularDependencyError(ValueError):
    """Handlers registered with ``depends_on`` wait for each other in a cycle (CrewAI's name)."""


@dataclass(frozen=True)
class Depends:
    """``@bus.on(Event, depends_on=Depends(setup))``: run after ``setup`` for each event."""

    handler: EventHandler


@dataclass(frozen=True)
class _Plan:
    """Handlers of one event type in dependency order: ``inline`` run in the emitting
    thread; ``deferred`` (async ones and what depends on them) in levels, each level's
    handlers concurrently, after the previous level."""

    inline: tuple[EventHandler, ...]
    deferred: tuple[tuple[EventHandler, ...], ...]

    def __bool__(self) -> bool:
        return bool(self.inline or self.deferred)


def _order(found: list[EventHandler], deps: dict[EventHandler, tuple[EventHandler, ...]]) -> _Plan:
    present = set(found)
    level: dict[EventHandler, int] = {}
    deferred: dict[EventHandler, bool] = {}

    def visit(h: EventHandler, path: tuple[EventHandler, ...]) -> None:
        if h in level:
            return
        if h in path:
            names = " -> ".join(getattr(x, "__qualname__", repr(x)) for x in (*path, h))
            raise CircularDependencyError(f"event handler dependencies form a cycle: {names}")
        before = [d for d in deps.get(h, ()) if d in present]
        for d in before:
            visit(d, (*path, h))
        is_async = inspect.iscoroutinefunction(h)
        deferred[h] = is_async or any(deferred[d] for d in before)
        level[h] = 1 + max((level[d] for d in before if deferred[d]), default=-1) if deferred[h] else 0
    for h in found:
        visit(h, ())
    inline = tuple(sorted((h for h in found if not deferred[h]), key=lambda h: _depth(h, deps, present)))
    levels: dict[int, list[EventHandler]] = {}
    for h in found:
        if deferred[h]:
            levels.setdefault(level[h], []).append(h)
    return _Plan(inline, tuple(tuple(levels[k]) for k in sorted(levels)))


def _depth(h: EventHandler, deps: dict[EventHandler, tuple[EventHandler, ...]], present: set[Any]) -> int:
    before = [d for d in deps.get(h, ()) if d in present]
    return 1 + max((_depth(d, deps, present) for d in before), default=-1)


_DONE: concurrent.futures.Future[None] = concurrent.futures.Future()
_DONE.set_result(None)  # shared: what emit returns when nothing is left to wait for

ORDERED_WAIT = 0.5
"""Seconds the dispatcher waits for one event's sync handlers before delivering the next
event on another thread (a slow handler holds later events back this long at most)."""

DRAIN_TIMEOUT = 60.0
"""Most seconds a kickoff waits, when it ends, for handlers still running."""

_POOL_WORKERS = 16

_local = threading.local()
"""``_local.handling``: this thread is delivering events (emits from it are delivered inline)."""


class _Delivery:
    """One event for its sync handlers, queued by a scheduler's thread."""

    __slots__ = ("context", "done", "event", "future", "handlers", "source")

    def __init__(self, handlers: list[EventHandler], source: Any, event: BaseEvent) -> None:
        self.handlers = handlers
        self.source = source
        self.event = event
        self.context = contextvars.copy_context()
        self.done = threading.Event()
        self.future: concurrent.futures.Future[None] = concurrent.futures.Future()


class CrewGraphEventsBus:
    """Registry of handlers by event type, with thread-safe emit."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._handlers: dict[type[BaseEvent], list[EventHandler]] = {}
        self._deps: dict[EventHandler, tuple[EventHandler, ...]] = {}
        self._plan_cache: dict[type[BaseEvent], _Plan] = {}
        self._handled: frozenset[type[BaseEvent]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._pending: set[asyncio.Future[Any]] = set()
        self._inline: set[EventHandler] = set()
        self._queue: queue.SimpleQueue[_Delivery] = queue.SimpleQueue()
        self._outstanding: set[_Delivery] = set()  # queued or running (guarded by _count_lock)
        self._count_lock = threading.Lock()
        self._dispatcher: threading.Thread | None = None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._stamp_lock = threading.Lock()
        self._sequence = 0
        self._last_event_id: str | None = None
        self.loop_guard = LoopGuard()
        """Async handlers found blocking the loop (``time.sleep`` in ``async def``) run off it."""

    # registration -------------------------------------------------------
    def on(
        self, event_type: type[E], depends_on: Depends | Iterable[Depends] | None = None
    ) -> Callable[[EventHandler], EventHandler]:
        """Decorator: call ``handler(source, event)`` for every ``event_type`` emitted
        (after the handlers named by ``depends_on``)."""

        def decorator(handler: EventHandler) -> EventHandler:
            self.register_handler(event_type, handler, depends_on=depends_on)
            return handler

        return decorator

    def register_handler(
        self,
        event_type: type[BaseEvent],
        handler: EventHandler,
        depends_on: Depends | Iterable[Depends] | None = None,
        *,
        inline: bool = False,
    ) -> None:
        """Call ``handler(source, event)`` for every ``event_type`` (and subclass) emitted.

        ``inline=True`` (for crewgraph's own bookkeeping listeners) runs a sync handler
        in the emitting thread, even a scheduler's; other sync handlers are dispatched
        off it (see the module docstring)."""
        if not (isinstance(event_type, type) and issubclass(event_type, BaseEvent)):
            raise TypeError(f"event_type must be a BaseEvent subclass, got {event_type!r}")
        deps: tuple[Depends, ...] = ()
        if depends_on is not None:
            deps = (depends_on,) if isinstance(depends_on, Depends) else tuple(depends_on)
            bad = [d for d in deps if not isinstance(d, Depends)]
            if bad:
                raise TypeError(f"depends_on takes Depends(handler) values, got {bad[0]!r}")
        with self._lock:
            self._handlers.setdefault(event_type, []).append(handler)
            if inline:
                self._inline.add(handler)
            if deps:
                before = self._deps.get(handler)
                self._deps[handler] = tuple(dict.fromkeys((*(before or ()), *(d.handler for d in deps))))
                try:
                    self._plan_uncached(event_type)
                except ValueError:
                    self._handlers[event_type].remove(handler)
                    if before is None:
                        del self._deps[handler]
                    else:
                        self._deps[handler] = before
                    raise
            self._forget_plans()

    def off(self, event_type: type[BaseEvent], handler: EventHandler) -> None:
        """Remove a handler registered with :meth:`on`."""
        with self._lock:
            handlers = self._handlers.get(event_type, [])
            if handler in handlers:
                handlers.remove(handler)
            if not any(handler in hs for hs in self._handlers.values()):
                self._inline.discard(handler)
            self._forget_plans()

    @contextlib.contextmanager
    def scoped_handlers(self) -> Iterator[None]:
        """Within the block, start with no handlers; restore the previous ones after."""
        with self._lock:
            saved = {k: list(v) for k, v in self._handlers.items()}
            saved_deps = dict(self._deps)
            saved_inline = set(self._inline)
            self._handlers = {}
            self._forget_plans()
        try:
            yield
        finally:
            with self._lock:
                self._handlers = saved
                self._deps = saved_deps
                self._inline = saved_inline
                self._forget_plans()

    def has_handlers(self, event_type: type[BaseEvent]) -> bool:
        return bool(self._plan(event_type))

    def handled_types(self) -> frozenset[type[BaseEvent]]:
        """The event classes with at least one handler (an event of a subclass reaches them too):
        what a step sent to another process is told about who listens."""
        handled = self._handled
        if handled is None:
            with self._lock:
                handled = self._handled = frozenset(k for k, hs in self._handlers.items() if hs)
        return handled

    def _forget_plans(self) -> None:
        """The handlers changed: what was worked out from them is stale (under ``_lock``)."""
        self._plan_cache.clear()
        self._handled = None

    # emission -----------------------------------------------------------
    def _plan_uncached(self, event_type: type[BaseEvent]) -> _Plan:
        found: list[EventHandler] = []
        for klass in event_type.__mro__:
            found.extend(self._handlers.get(klass, ()))
        return _order(list(dict.fromkeys(found)), self._deps)

    def _plan(self, event_type: type[BaseEvent]) -> _Plan:
        plan = self._plan_cache.get(event_type)
        if plan is None:
            with self._lock:
                plan = self._plan_uncached(event_type)
                self._plan_cache[event_type] = plan
        return plan

    def emit(self, source: Any, event: BaseEvent) -> concurrent.futures.Future[None]:
        """Deliver ``event`` to every handler registered for its class or a base class.

        From a thread that is not running an event loop, sync handlers have run
        when this returns; from a scheduler's thread they are queued (see the
        module docstring). The returned future completes when every handler,
        sync and async, has run."""
        plan = self._plan(type(event))
        if not plan:
            return _DONE
        self._stamp(source, event)
        delivery = self._run_sync(plan, source, event)
        if not plan.deferred:
            return delivery.future if delivery is not None else _DONE
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        done: concurrent.futures.Future[None]
        if loop is not None:
            task = loop.create_task(self._run_deferred(plan, source, event))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
            done = concurrent.futures.Future()
            task.add_done_callback(lambda _t: done.set_result(None))
        else:
            done = asyncio.run_coroutine_threadsafe(self._run_deferred(plan, source, event), self._background_loop())
            self._pending.add(done)  # type: ignore[arg-type]
            done.add_done_callback(lambda f: self._pending.discard(f))
        return done if delivery is None else _both(done, delivery.future)

    async def aemit(self, source: Any, event: BaseEvent) -> None:
        """Run ``event``'s **async** handlers on the current loop and wait for them.

        As CrewAI's ``aemit``: only async handlers run (in dependency order); sync
        handlers are not called -- ``emit`` delivers to both."""
        plan = self._plan(type(event))
        if plan:
            self._stamp(source, event)
        for level in plan.deferred:
            mine = [h for h in level if inspect.iscoroutinefunction(h)]
            if mine:
                await asyncio.gather(*(self._guard(h, source, event) for h in mine))

    def emission_state(self) -> tuple[int, str | None]:
        """``(emission_sequence, event_id)`` of the last event stamped (``(0, None)`` before any):
        what ``crewgraph.context.capture_execution_context`` records."""
        with self._stamp_lock:
            return self._sequence, self._last_event_id

    def _stamp(self, source: Any, event: BaseEvent) -> None:
        """CrewAI's emission fields: the sequence number, the previous event, the parent and
        started events (:mod:`crewgraph.events._lineage`), the source's fingerprint (an agent,
        task or crew has one)."""
        with self._stamp_lock:
            self._sequence += 1
            event.emission_sequence = self._sequence
            event.previous_event_id, self._last_event_id = self._last_event_id, event.event_id
        link(event, self.has_handlers)
        if event.source_fingerprint is None:
            fingerprint = getattr(source, "fingerprint", None)
            uuid_str = getattr(fingerprint, "uuid_str", None)
            if isinstance(uuid_str, str):
                event.source_fingerprint = uuid_str
                event.fingerprint_metadata = dict(getattr(fingerprint, "metadata", None) or {}) or None

    def _run_sync(self, plan: _Plan, source: Any, event: BaseEvent) -> _Delivery | None:
        """Run or queue the plan's sync handlers; the delivery when they were queued."""
        if not plan.inline:
            return None
        if getattr(_local, "handling", False):  # emitted by a handler: deliver here, now
            self._run_handlers(plan.inline, source, event)
            return None
        user = [h for h in plan.inline if h not in self._inline]
        if len(user) < len(plan.inline):
            self._run_handlers([h for h in plan.inline if h in self._inline], source, event)
        if not user:
            return None
        if _on_event_loop():
            delivery = _Delivery(user, source, event)
            self._enqueue(delivery)
            return delivery
        with self._count_lock:
            idle = not self._outstanding
        if idle:  # nothing queued ahead of this event: deliver it here, now
            self._run_handlers(user, source, event)
            return None
        delivery = _Delivery(user, source, event)
        self._enqueue(delivery)  # after what is queued; returns once it was delivered
        delivery.done.wait(DRAIN_TIMEOUT)
        return None

    @staticmethod
    def _run_handlers(handlers: Iterable[EventHandler], source: Any, event: BaseEvent) -> None:
        for handler in handlers:
            try:
                handler(source, event)
            except Exception:  # a listener must never break the run
                logger.exception("event handler %r failed on %s", handler, event.event_type)

    # dispatch off the scheduler's thread --------------------------------
    def _enqueue(self, delivery: _Delivery) -> None:
        with self._count_lock:
            self._outstanding.add(delivery)
        self._start_dispatcher()
        self._queue.put(delivery)

    def _start_dispatcher(self) -> None:
        if self._dispatcher is not None:
            return
        with self._lock:
            if self._dispatcher is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    max_workers=_POOL_WORKERS, thread_name_prefix="crewgraph-handler", initializer=_mark_handling
                )
                thread = threading.Thread(target=self._dispatch, name="crewgraph-events-dispatch", daemon=True)
                thread.start()
                self._dispatcher = thread

    def _dispatch(self) -> None:
        """Deliver queued events in order, each waited for at most ``ORDERED_WAIT`` seconds."""
        assert self._pool is not None
        while True:
            delivery = self._queue.get()
            future = self._pool.submit(self._deliver, delivery)
            with contextlib.suppress(Exception):
                future.result(timeout=ORDERED_WAIT)

    def _deliver(self, delivery: _Delivery) -> None:
        try:
            delivery.context.run(self._run_handlers, delivery.handlers, delivery.source, delivery.event)
        finally:
            with self._count_lock:
                self._outstanding.discard(delivery)
            delivery.done.set()
            delivery.future.set_result(None)

    def drain(self, timeout: float = DRAIN_TIMEOUT) -> bool:
        """Wait until every event emitted before the call has been handled (sync and
        async handlers); False if ``timeout`` seconds passed first. From a handler's
        own thread it returns at once (it would wait for itself)."""
        if getattr(_local, "handling", False):
            return True
        deadline = time.monotonic() + timeout
        with self._count_lock:
            outstanding = list(self._outstanding)
        for delivery in outstanding:
            if not delivery.done.wait(max(0.0, deadline - time.monotonic())):
                logger.warning("event handlers still running after %.0fs; not waiting longer", timeout)
                return False
        self.flush(max(0.0, deadline - time.monotonic()))
        return True

    async def adrain(self, timeout: float = DRAIN_TIMEOUT) -> bool:
        """:meth:`drain` from a coroutine, without blocking its loop."""
        with self._count_lock:
            if not self._outstanding and not self._pending:
                return True
        loop = asyncio.get_running_loop()
        mine = [f for f in self._pending if isinstance(f, asyncio.Future) and f.get_loop() is loop]
        if mine:  # async handlers on this loop
            await asyncio.wait(mine, timeout=timeout)
        return await asyncio.to_thread(self.drain, timeout)

    async def _run_deferred(self, plan: _Plan, source: Any, event: BaseEvent) -> None:
        for level in plan.deferred:
            await asyncio.gather(*(self._guard(h, source, event) for h in level))

    async def _guard(self, handler: EventHandler, source: Any, event: BaseEvent) -> None:
        try:
            if inspect.iscoroutinefunction(handler):
                await self.loop_guard.run(handler, source, event)  # timed: see _loop_guard
                return
            result = await asyncio.to_thread(handler, source, event)  # a sync one: off the loop
            if inspect.isawaitable(result):
                await result
        except Exception:
            logger.exception("async event handler %r failed on %s", handler, event.event_type)

    def _background_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._loop_thread = threading.Thread(
                    target=self._loop.run_forever, name="crewgraph-events", daemon=True
                )
                self._loop_thread.start()
            return self._loop

    def flush(self, timeout: float = 5.0) -> None:
        """Wait (from sync code) until async handlers scheduled so far have finished."""
        import concurrent.futures

        for fut in list(self._pending):
            if isinstance(fut, concurrent.futures.Future):
                with contextlib.suppress(Exception):
                    fut.result(timeout=timeout)


def _both(a: concurrent.futures.Future[None], b: concurrent.futures.Future[None]) -> concurrent.futures.Future[None]:
    """A future done when ``a`` and ``b`` are."""
    done: concurrent.futures.Future[None] = concurrent.futures.Future()
    lock = threading.Lock()
    left = [2]

    def one(_f: concurrent.futures.Future[None]) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            done.set_result(None)

    a.add_done_callback(one)
    b.add_done_callback(one)
    return done


def _on_event_loop() -> bool:
    """True on a thread running an asyncio loop (a scheduler's): handlers must not run here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _mark_handling() -> None:
    _local.handling = True


crewgraph_event_bus = CrewGraphEventsBus()
