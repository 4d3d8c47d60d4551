"""A task's chain of steps as one Ray task (the worker side of :mod:`crewgraph.distributed._chain`).

The scheduler groups the nodes of one task that run one after another (agent step,
output conversion, guardrails: ``chains``, node id -> the node that runs right after
it and only because of it). Shipping each of their steps alone costs one Ray round
trip per step (several ms on a local cluster, where a local step costs 0.2 ms), and an
agent step that calls tools has more steps: the step, each tool call, the step again.

Here, on the worker, one Ray task (a streaming generator) runs them as the driver's
scheduler would: a step; the tool calls it spawns, concurrently; the step resumed with
their results; and so on; then the chain's next node with this one's output as its
upstream. Each step's reply is yielded the moment it exists, so the driver hands it to
its scheduler, which records, emits, checkpoints and retries as it does for a step it
shipped alone. Nothing is retried here: the first step that fails (or pauses, or spawns
something that must run elsewhere) ends the frame it is in, and the driver carries on
from there with its own policies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from crewgraph.distributed._cache_share import new_entries
from crewgraph.distributed._worker import (
    StepPayload,
    StepReply,
    _drain,
    _driver_hooks,
    _dumps_reply,
    _loop,
    _prepare_worker,
    _shared_state,
    load_step,
    one_step,
    results_of,
)

__all__ = ["ChainPayload", "run_remote_chain"]


@dataclass
class ChainPayload:
    """The first step, as a dispatch of it alone would send it, and the chain to follow."""

    first: StepPayload
    chain: dict[str, Any] = field(default_factory=dict)
    """Node id -> the node that runs after it (same task, triggered by it alone)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The Ray options this task was placed with: a step that needs others is not run here."""
    executor: Any = None
    """The RayExecutor (its configuration), to place the spawned steps as the driver would."""


def joins(node: Any, payload: ChainPayload) -> bool:
    """Whether a step of ``node`` may run inside this chain's Ray task: it runs on a worker
    (not a driver-side step) and asks for the same placement as the chain's first step."""
    from crewgraph.distributed._session import ships

    return ships(node) and payload.executor.step_options(node) == payload.options


def run_remote_chain(data: bytes, *waits: Any) -> Iterator[bytes]:
    """The Ray task (a streaming generator): run the chain from ``data`` (a pickled
    ChainPayload), yielding each step's reply (a pickled StepReply) as it finishes. ``waits``:
    the host's appends of shared context (Ray starts the task once they are done)."""
    _prepare_worker()
    from crewgraph._internal.run_context import run_scope

    payload: ChainPayload = load_step(data)
    step = payload.first
    runner = _Runner(payload)
    loop = _loop()
    with run_scope(step.run_id), _driver_hooks(step.global_hooks):
        main = loop.create_task(runner.chain())
        try:
            while True:
                reply = loop.run_until_complete(runner.next_reply(main))
                if reply is None:
                    break
                yield _dumps_reply(reply)
            main.result()  # an error of the runner itself (not of a step) is the task's error
        finally:
            if not main.done() and not loop.is_running():  # the driver cancelled the chain: stop its steps
                main.cancel()
                loop.run_until_complete(asyncio.gather(main, return_exceptions=True))
            _drain(step.memory)


class _Runner:
    """Runs the frames of one chain on the worker's loop; replies go to a queue."""

    def __init__(self, payload: ChainPayload) -> None:
        self.payload = payload
        self.step = payload.first
        self.shared = _shared_state(self.step)
        self.results = results_of(self.step, dict(self.step.results))
        self.sent = len(self.shared.tool_cache)
        """How much of the cache the replies so far account for (what steps add comes after)."""
        self.out: asyncio.Queue[StepReply] = asyncio.Queue()

    async def next_reply(self, main: asyncio.Task[None]) -> StepReply | None:
        """The next reply, or None once the chain is over and every reply was taken."""
        if self.out.empty() and not main.done():
            getter = asyncio.ensure_future(self.out.get())
            await asyncio.wait({getter, main}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                return getter.result()
            getter.cancel()
        return None if self.out.empty() else self.out.get_nowait()

    async def chain(self) -> None:
        step = self.step
        node: Any = step.node
        kw: dict[str, Any] = dict(upstream=step.upstream, resume=step.resume, spawned=step.spawned,
                                  attempt=step.attempt, trigger=step.trigger)
        while True:
            ok, output = await self.frame(node, kw)
            following = self.payload.chain.get(node.id)
            if not ok or following is None or not joins(following, self.payload):
                return
            self.results[node.id] = output
            kw = dict(upstream={node.id: output}, resume=None, spawned={}, attempt=1, trigger=node.id)
            node = following

    async def frame(self, node: Any, kw: dict[str, Any]) -> tuple[bool, Any]:
        """``node`` to its end as the scheduler's ``run_node`` runs it (steps, spawned children,
        resumed steps); ``(False, None)`` when it ended otherwise (failed, paused, handed back)."""
        while True:
            reply = await one_step(self.step, self.shared, node, results=self.results, **kw)
            self._put(reply)
            result = reply.result
            if reply.error is not None or result is None or result.pending is not None:
                return False, None
            if not result.spawn:
                return True, result.output
            children = list(result.spawn)
            if not all(joins(child, self.payload) for child in children):
                return False, None  # the driver runs them, and the resumed step, as usual
            child_kw = dict(upstream=kw["upstream"], resume=None, spawned={}, attempt=1, trigger=None)
            parts = await asyncio.gather(*(self.frame(child, dict(child_kw)) for child in children))
            if not all(ok for ok, _ in parts):
                self._put(StepReply(node_id=node.id, stopped=True))  # no resumed step will come
                return False, None
            spawned = {child.id: out for child, (_, out) in zip(children, parts, strict=True)}
            kw = dict(kw, resume=result.resume, spawned=spawned, attempt=1)

    def _put(self, reply: StepReply) -> None:
        """Queue a reply, with the tool-cache entries no earlier reply carried."""
        cache = self.shared.tool_cache
        if len(cache) > self.sent:
            reply.tool_cache = new_entries(cache, self.sent)
            self.sent = len(cache)
        self.out.put_nowait(reply)
