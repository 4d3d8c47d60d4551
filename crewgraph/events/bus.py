"""The process-wide event bus: typed events in, sync and async handlers out.

Handlers are registered per event class and also receive instances of its
subclasses. Sync handlers run inline in the emitting thread (so ordering is
deterministic and tests need no sleeps); async handlers run on the caller's
event loop when there is one, else on a private background loop. A handler
that raises is logged and never breaks the run that emitted the event.

``emit`` returns a ``concurrent.futures.Future`` that completes once the
event's async handlers have run (at once when it has none); ``aemit`` is the
awaitable form. A handler registered with ``depends_on=Depends(other)`` (or
a list of them) runs after ``other`` for the same event -- a sync handler
that depends on an async one is deferred with it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from crewgraph.events.base import BaseEvent

__all__ = ["CrewGraphEventsBus", "Depends", "EventHandler", "crewgraph_event_bus"]

logger = logging.getLogger("crewgraph.events")

EventHandler = Callable[[Any, Any], Any]
E = TypeVar("E", bound=BaseEvent)


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
            raise ValueError(f"event handler dependencies form a cycle: {names}")
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


class CrewGraphEventsBus:
    """Registry of handlers by event type, with thread-safe emit."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._handlers: dict[type[BaseEvent], list[EventHandler]] = {}
        self._deps: dict[EventHandler, tuple[EventHandler, ...]] = {}
        self._plan_cache: dict[type[BaseEvent], _Plan] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._pending: set[asyncio.Future[Any]] = set()

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
    ) -> None:
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
            self._plan_cache.clear()

    def off(self, event_type: type[BaseEvent], handler: EventHandler) -> None:
        """Remove a handler registered with :meth:`on`."""
        with self._lock:
            handlers = self._handlers.get(event_type, [])
            if handler in handlers:
                handlers.remove(handler)
            self._plan_cache.clear()

    @contextlib.contextmanager
    def scoped_handlers(self) -> Iterator[None]:
        """Within the block, start with no handlers; restore the previous ones after."""
        with self._lock:
            saved = {k: list(v) for k, v in self._handlers.items()}
            saved_deps = dict(self._deps)
            self._handlers = {}
            self._plan_cache.clear()
        try:
            yield
        finally:
            with self._lock:
                self._handlers = saved
                self._deps = saved_deps
                self._plan_cache.clear()

    def has_handlers(self, event_type: type[BaseEvent]) -> bool:
        return bool(self._plan(event_type))

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
        Sync handlers have run when this returns; the returned future completes when the
        async ones (and handlers that depend on them) have run."""
        plan = self._plan(type(event))
        self._run_inline(plan, source, event)
        if not plan.deferred:
            return _DONE
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            task = loop.create_task(self._run_deferred(plan, source, event))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            task.add_done_callback(lambda _t: done.set_result(None))
            return done
        fut = asyncio.run_coroutine_threadsafe(self._run_deferred(plan, source, event), self._background_loop())
        self._pending.add(fut)  # type: ignore[arg-type]
        fut.add_done_callback(lambda f: self._pending.discard(f))
        return fut

    async def aemit(self, source: Any, event: BaseEvent) -> None:
        """Deliver ``event`` and wait, on the current loop, until every handler has run."""
        plan = self._plan(type(event))
        self._run_inline(plan, source, event)
        if plan.deferred:
            await self._run_deferred(plan, source, event)

    @staticmethod
    def _run_inline(plan: _Plan, source: Any, event: BaseEvent) -> None:
        for handler in plan.inline:
            try:
                handler(source, event)
            except Exception:  # a listener must never break the run
                logger.exception("event handler %r failed on %s", handler, event.event_type)

    async def _run_deferred(self, plan: _Plan, source: Any, event: BaseEvent) -> None:
        for level in plan.deferred:
            await asyncio.gather(*(self._guard(h, source, event) for h in level))

    @staticmethod
    async def _guard(handler: EventHandler, source: Any, event: BaseEvent) -> None:
        try:
            result = handler(source, event)
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


crewgraph_event_bus = CrewGraphEventsBus()
