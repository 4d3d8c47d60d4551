"""A task's chain of steps as one Ray task: the driver side (the worker side is ``_chain_worker``).

When the scheduler hands :class:`~crewgraph.distributed._session.RaySession` a step
whose node starts (or continues) a chain, the session sends the whole chain in one
Ray task, a streaming generator that yields each step's reply as the step finishes
there. A :class:`ChainBatch` reads those replies and keeps each for the scheduler's
own call of that step: the scheduler still runs every node itself -- ``run_node``,
its retry and timeout policies, its events, records and checkpoints, in the same
order as a local run -- and the session answers each of those calls from the batch
instead of a new round trip.

A reply is only used for the call it was computed for: the batch knows which call
comes next for each node (the step resumed with *these* tool results, the chain's next
node with *this* output upstream, a first attempt) and checks the scheduler's context
against it by identity. Anything else (a retry after a failure, a driver-side hook that
changed what runs) finds no reply and is dispatched as usual; a call that is cancelled
(a timeout, the run failing) cancels the Ray task.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.distributed._worker import StepReply
    from crewgraph.graph.context import NodeContext

__all__ = ["ChainBatch"]

Check = Callable[["NodeContext"], bool]


def _first(ctx: NodeContext) -> bool:
    return True


@dataclass
class _Slot:
    """What the batch holds for one node: the checks of the calls still to come, in order,
    the replies that arrived (each with the check of the call it answers)."""

    checks: deque[Check] = field(default_factory=deque)
    replies: deque[tuple[StepReply, Check]] = field(default_factory=deque)
    waiter: asyncio.Future[None] | None = None


class ChainBatch:
    """The replies of one chain's Ray task, handed out to the scheduler's calls of its steps.

    ``chains`` is the scheduler's grouping (node id -> the node after it); ``joins(node)``
    says whether a node's steps may run inside this Ray task (the worker decides the same).
    ``on_node(node_id, batch)`` / ``on_done(node_id, batch)`` tell the session which node
    calls to route here."""

    def __init__(
        self,
        first: str,
        chains: dict[str, Any],
        joins: Callable[[Any], bool],
        on_node: Callable[[str, ChainBatch], None],
        on_done: Callable[[str, ChainBatch], None],
    ) -> None:
        self.chains = chains
        self.joins = joins
        self._on_node = on_node
        self._on_done = on_done
        self._slots: dict[str, _Slot] = {}
        self._members: set[str] = {first}
        """Nodes of the chain itself (not spawned children): their end starts the next node."""
        self._over = False
        self._error: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self._generator: Any = None
        self._cancel: Callable[[Any], None] | None = None
        self.on_end: Callable[[ChainBatch], None] | None = None
        """Called once when the Ray task is over (the session forgets the batch)."""
        self._expect(first, _first)

    # ------------------------------------------------------------------ reading the Ray task
    def start(
        self,
        generator: Any,
        load: Callable[[bytes], StepReply],
        failure: Callable[[BaseException], BaseException],
        cancel: Callable[[Any], None],
    ) -> None:
        """Read ``generator`` (the Ray task's ObjectRefGenerator) on this loop: ``load`` turns
        a yielded object into a reply, ``failure`` a Ray error into the one a step raises
        (a lost worker: ``WorkerLostError``), ``cancel`` stops the Ray task."""
        self._generator = generator
        self._cancel = cancel
        self._task = asyncio.ensure_future(self._pump(generator, load, failure))

    async def _pump(
        self, generator: Any, load: Callable[[bytes], StepReply], failure: Callable[[BaseException], BaseException]
    ) -> None:
        try:
            async for ref in generator:
                self._arrived(load(await ref))
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            self._error = failure(exc)
        finally:
            self._end()

    def _arrived(self, reply: StepReply) -> None:
        nid = reply.node_id
        slot = self._slots.get(nid)
        if slot is None or not slot.checks:
            return  # not a call the driver will make (cannot happen while both sides agree)
        if reply.stopped:
            slot.checks.clear()
            self._wake(nid)
            return
        check = slot.checks.popleft()
        slot.replies.append((reply, check))
        result = reply.result
        if reply.error is None and result is not None and result.pending is None:
            if result.spawn:
                children = list(result.spawn)
                if all(self.joins(child) for child in children):
                    for child in children:
                        self._expect(child.id, _first_attempt)
                    self._expect(nid, _resumed(result.resume, [c.id for c in children]))
            elif nid in self._members:
                following = self.chains.get(nid)
                if following is not None and self.joins(following):
                    self._members.add(following.id)
                    self._expect(following.id, _after(nid, result.output))
        self._wake(nid)

    def _expect(self, nid: str, check: Check) -> None:
        slot = self._slots.setdefault(nid, _Slot())
        slot.checks.append(check)
        self._on_node(nid, self)

    def _wake(self, nid: str) -> None:
        slot = self._slots.get(nid)
        if slot is not None and slot.waiter is not None and not slot.waiter.done():
            slot.waiter.set_result(None)

    def _end(self) -> None:
        first = not self._over
        self._over = True
        for nid in list(self._slots):
            self._wake(nid)
        if first and self.on_end is not None:
            self.on_end(self)

    # ------------------------------------------------------------------ the scheduler's calls
    async def take(self, nid: str, ctx: NodeContext) -> StepReply | None:
        """The reply computed for this call of ``nid``'s step, or None (dispatch it anew)."""
        slot = self._slots.get(nid)
        if slot is None:
            return None
        try:
            while not slot.replies:
                if self._over or not slot.checks:
                    if self._error is not None and slot.checks:
                        slot.checks.clear()
                        self._release(nid, slot)
                        raise self._error  # the worker died while this step was to run there
                    self._release(nid, slot)
                    return None
                slot.waiter = asyncio.get_running_loop().create_future()
                await slot.waiter
                slot.waiter = None
        except asyncio.CancelledError:
            self.cancel()  # a timeout or the run ending: the worker must stop this step too
            raise
        reply, check = slot.replies.popleft()
        if not check(ctx):
            self.cancel()  # the scheduler asks for something else than was computed
            return None
        self._release(nid, slot)
        return reply

    def _release(self, nid: str, slot: _Slot) -> None:
        if not slot.checks and not slot.replies:
            self._on_done(nid, self)

    def cancel(self) -> None:
        """Stop the Ray task if it still has steps the driver waits for; every call still
        waiting on it is dispatched anew. (A chain whose every reply was taken is left to end
        on its own: interrupting a worker costs more than letting it finish.)"""
        wanted = any(slot.checks or slot.replies for slot in self._slots.values())
        for nid, slot in self._slots.items():
            slot.checks.clear()
            slot.replies.clear()
            self._on_done(nid, self)
        if wanted and not self._over and self._generator is not None and self._cancel is not None:
            self._cancel(self._generator)
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._end()


def _first_attempt(ctx: NodeContext) -> bool:
    return ctx.attempt == 1


def _resumed(resume: Any, children: list[str]) -> Check:
    def check(ctx: NodeContext) -> bool:
        return ctx.attempt == 1 and ctx.resume is resume and sorted(ctx.spawned) == sorted(children)

    return check


def _after(previous: str, output: Any) -> Check:
    def check(ctx: NodeContext) -> bool:
        upstream = ctx.upstream
        return ctx.attempt == 1 and len(upstream) == 1 and upstream.get(previous) is output

    return check
