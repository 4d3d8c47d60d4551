"""The one scheduler: runs any ExecutionGraph (crew or flow) on an asyncio ready-set.

Semantics
- A node becomes ready when its trigger condition holds: ``join="all"`` (the
  default) waits until every execution predecessor has fired since the node
  last ran; ``"any"`` runs on each firing; ``"any_once"`` runs on the first only.
- When a node finishes it fires its out-edges; an edge with a ``route``
  attribute fires only if the node's ``NodeResult.route`` equals it (routers).
- Entry nodes are ``graph.meta["entry"]`` or those with no predecessors.
- Ready nodes run concurrently, at most ``max_concurrency`` steps at once.
  A step that returns ``spawn`` releases its slot while its children run.
- Each step runs under the node's RetryPolicy/TimeoutPolicy; a node that
  still fails is fatal: the rest of the run is cancelled and the error raised.
- After a node finishes, the checkpointer saves its output (and its route)
  before any successor starts; nodes in ``restored`` are not run again (they
  call ``on_node_restored``, not ``on_node_finished``: their side effects
  happened in the run that computed them). A restored node fires the route it
  took in the run that computed it, so a resumed run follows the same branches
  without asking a router or condition again; a node with routed out-edges
  whose checkpoint holds no route (saved by an older version) runs again.
- ``max_executions`` bounds the total executions (loop guard for flows).
- A node whose result is ``pending`` (it waits for a person) completes nothing:
  the rest of the graph runs to quiescence, then the run ends ``paused`` with
  ``RunResult.paused`` naming the waiting nodes.
- With an ``executor`` (:mod:`crewgraph.runtime.executor`), each step runs where it
  says (a Ray worker); everything above still happens here, so the outputs, the
  executed graph and the checkpoints do not depend on the executor. The executor is
  told which nodes of a task form a chain (:mod:`crewgraph.runtime._chains`) and may
  compute a chain's steps in one go; the scheduler still runs each of its nodes.
- Events no handler listens to are neither built nor stamped; a node can ask
  ``ctx.emit.wants(EventType)`` before building one (the emitter is a ``runtime._node_emitter.NodeEmitter``).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine
from types import MappingProxyType
from typing import Any

from crewgraph._internal.gc_scope import run_collector
from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import CrewGraphError, LoopGuardError, NodeExecutionError, RunCancelledError
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
from crewgraph.events.node_events import (
    NodeFailedEvent,
    NodeFinishedEvent,
    NodeRetriedEvent,
    NodeStartedEvent,
)
from crewgraph.graph.call_records import CALLS_KEY, descendants, saved_calls
from crewgraph.graph.context import NodeContext
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.run_record import RunGraph, RunRecord
from crewgraph.graph.run_state import RunState
from crewgraph.ids import new_run_id
from crewgraph.outputs import UsageMetrics
from crewgraph.runtime._attempts import run_step_with_policies
from crewgraph.runtime._node_emitter import NodeEmitter
from crewgraph.runtime._plan import index_plan
from crewgraph.runtime._restore import load_restored, save_failure
from crewgraph.runtime.run_result import RunResult, executed_graph, preview, sum_usage

__all__ = ["RunResult", "Scheduler"]

NodeHook = Callable[[Node, Any], Any]
"""``hook(node, output)``; may return an awaitable (the successors fire once it is done)."""


class Scheduler:
    """Runs one ExecutionGraph once. Create a new Scheduler per run."""

    def __init__(
        self,
        graph: ExecutionGraph,
        *,
        llm: Any = None,
        memory: Any = None,
        inputs: dict[str, Any] | None = None,
        run_id: str | None = None,
        state: RunState | None = None,
        max_concurrency: int = 128,
        max_executions: int | None = None,
        checkpointer: Any = None,
        restored: dict[str, Any] | None = None,
        on_node_finished: NodeHook | None = None,
        on_node_restored: NodeHook | None = None,
        bus: CrewGraphEventsBus | None = None,
        source: Any = None,
        executor: Any = None,
        entry: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        """``entry``: the nodes to start from instead of the graph's entry nodes (a flow
        resumed at one method)."""
        self.graph = graph
        self.plan = index_plan(graph)
        if entry is not None:
            unknown = [n for n in entry if n not in self.plan.nodes]
            if unknown:
                raise CrewGraphError(f"cannot start at {unknown}: not nodes of graph {graph.name!r}")
            self.plan.entry = tuple(entry)
        self.run_id = run_id or new_run_id()
        self.inputs = dict(inputs or {})
        self.llm = llm
        self.memory = memory
        self.state = state or RunState()
        self.max_concurrency = max(1, max_concurrency)
        self.max_executions = max_executions
        self.checkpointer = checkpointer
        self.restored = dict(restored or {})
        self.on_node_finished = on_node_finished
        self.on_node_restored = on_node_restored
        self.bus = bus or crewgraph_event_bus
        self.source = source if source is not None else self
        self.outputs: dict[str, Any] = {}
        self._results = MappingProxyType(self.outputs)
        self.order: list[str] = []
        self.records: dict[str, RunRecord] = {}
        self.spawn_edges: list[tuple[str, str]] = []
        self._children: dict[str, list[str]] = {}
        self._restored_usage: dict[str, UsageMetrics] = {}
        self._restored_routes: dict[str, str | None] = {}
        self._executions = 0
        self._fired: dict[str, set[str]] = {n: set() for n in self.plan.nodes}
        self._once_done: set[str] = set()
        self._trigger: dict[str, str | None] = {}
        self._sem: asyncio.Semaphore | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self._wake: asyncio.Event | None = None
        self._error: BaseException | None = None
        self.paused: dict[str, dict[str, Any]] = {}
        self.executor = executor
        self._step: Any = None
        self.llm_tracer: Any = None
        """The run graph's LLM call recorder (a ``runtime.llm_trace.LLMCallTracer``) while active."""
        self.listened: tuple[Any, bool, Any] | None = None
        """The last ``NodeEmitter.listened`` answer, with the handler set and tracer state it was for."""

    # ------------------------------------------------------------------ events
    def emit(self, event: BaseEvent, node: Node | None = None) -> None:
        """Publish an event stamped with this run (and node) id (and give a node's LLM call
        events to the run graph's tracer, when one is active)."""
        tracer = self.llm_tracer
        if tracer is not None and node is not None:
            tracer.take(event.node_id or node.id, event)
        if not self.bus.has_handlers(type(event)):
            return  # nobody listens: skip the (pydantic) stamping
        if event.run_id is None:
            event.run_id = self.run_id
        if node is not None and event.node_id is None:
            event.node_id = node.id
            event.node_kind = node.kind
        self.bus.emit(self.source, event)

    def _emitter(self, node: Node) -> Callable[[BaseEvent], None]:
        return NodeEmitter(self, node)

    def wants(self, event_type: type[BaseEvent]) -> bool:
        """Whether an event of this type would reach a handler (else don't build it)."""
        return self.bus.has_handlers(event_type)

    # ------------------------------------------------------------------ public
    async def run(self) -> RunResult:
        """Run the graph to quiescence and return every node's output (full garbage
        collections spaced out meanwhile: :mod:`crewgraph._internal.gc_scope`)."""
        with run_collector():
            return await self._run_here()

    async def _run_here(self) -> RunResult:
        self._sem = asyncio.Semaphore(self.max_concurrency)
        if self.executor is not None:
            # Before anything is recorded or a token spent: connect, refuse what cannot run there.
            from crewgraph.runtime._chains import task_chains

            plan = self.plan
            chains = task_chains(self.graph.digraph, plan.preds, plan.succs, plan.join, plan.entry, self.restored)
            session = self.executor.prepare(self.graph, state=self.state, memory=self.memory, llm=self.llm,
                                            chains=chains)
            self._step = session.run_step
            try:
                return await self._run()
            finally:
                session.close()
                self._step = None
        return await self._run()

    async def _run(self) -> RunResult:
        for nid in self.plan.nodes:
            node = self.plan.nodes[nid]
            # labels with the kickoff's {placeholders} filled in: the records, events and the
            # executed graph say "research cats", not "research {topic}"
            self.records[nid] = RunRecord(node_id=nid, kind=node.kind, label=interpolate(node.display_label, self.inputs))
        if self.checkpointer is not None:
            self.checkpointer.start_run(self.run_id, name=self.graph.name, meta=self._meta())
        self._restored_usage = load_restored(self.checkpointer, self.run_id, self.restored, self.plan,
                                             self._restored_routes)
        try:
            self._wake = asyncio.Event()
            for nid in self.plan.entry:
                self._make_ready(nid, None)
            while self._tasks and self._error is None:
                # Woken by a task's done callback when the last task ends or one fails:
                # asyncio.wait over every pending task was O(pending) per completion, O(N^2)
                # for a wide graph (10,000 independent tasks are all pending at once).
                self._wake.clear()
                await self._wake.wait()
            if self._error is not None:
                await self._cancel_all()
                raise self._error
        except asyncio.CancelledError:
            await self._cancel_all()
            self._finish_failed_checkpoint("cancelled", "cancelled")
            raise
        except BaseException as exc:
            self._finish_failed_checkpoint("failed", str(exc))
            if isinstance(exc, CrewGraphError):
                exc.run_id = self.run_id  # type: ignore[attr-defined]
                exc.run_graph = self.run_graph("failed", str(exc))  # type: ignore[attr-defined]
            await self.bus.adrain()  # handlers have seen the run's events when it ends
            raise
        status = "paused" if self.paused else "completed"
        self._finish_checkpoint(status, None)
        await self.bus.adrain()
        total = sum_usage(rec.usage for rec in self.records.values())
        return RunResult(
            run_id=self.run_id,
            outputs=self.outputs,
            run_graph=self.run_graph(status, None),
            usage=total,
            order=self.order,
            paused=dict(self.paused),
        )

    def spawned_by(self, nid: str) -> list[str]:
        """Ids of the nodes ``nid`` spawned (its tool calls, coworker steps), in spawn order."""
        return self._children.get(nid, [])

    def _subtree_usage(self, nid: str) -> UsageMetrics:
        """Usage of ``nid``'s record plus every record it spawned, transitively."""
        total = UsageMetrics()
        stack = [nid]
        while stack:
            current = stack.pop()
            rec = self.records.get(current)
            if rec is not None:
                total = total.add(rec.usage)
            stack.extend(self._children.get(current, ()))
        return total

    def _meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            k: v for k, v in self.graph.meta.items() if isinstance(v, str | int | float | bool)
        }
        meta["inputs"] = {k: v for k, v in self.inputs.items() if isinstance(v, str | int | float | bool)}
        return meta

    def _finish_checkpoint(self, status: str, error: str | None) -> None:
        if self.checkpointer is not None:
            self.checkpointer.finish_run(self.run_id, status=status, error=error)

    def _finish_failed_checkpoint(self, status: str, error: str | None) -> None:
        """The end of a failed or cancelled run in the store; when this process lost the run's
        lease (a fenced write refused) nothing is written: the new holder owns the record."""
        if self.checkpointer is None:
            return
        from crewgraph.checkpoint.lease import LeaseLostError

        try:
            self._finish_checkpoint(status, error)
        except LeaseLostError:
            return

    async def _cancel_all(self) -> None:
        for t in self._tasks:
            t.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for rec in self.records.values():
            if rec.status == "running":
                rec.status = "cancelled"
        self._tasks.clear()

    # ------------------------------------------------------------------ readiness
    def _make_ready(self, nid: str, trigger: str | None) -> None:
        self._trigger[nid] = trigger
        if nid in self.restored and nid not in self.outputs:
            result = NodeResult(output=self.restored[nid], route=self._restored_routes.get(nid))
            waiting = self._complete(nid, self.restored[nid], result, restored=True)
            if waiting is not None:  # an async restore hook: successors fire once it is done
                self._track(asyncio.ensure_future(waiting))
            return
        # The trigger goes with this execution: a node in mode "any" may be made ready
        # again (by another predecessor) before this execution starts.
        self._track(asyncio.ensure_future(self._execute(nid, trigger)))

    def _track(self, task: asyncio.Future[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Future[None]) -> None:
        self._tasks.discard(task)
        exc = None if task.cancelled() else task.exception()  # retrieved, even after a first error
        if self._error is None and exc is not None:
            self._error = exc  # never let a node task's error go unseen
        if (not self._tasks or self._error is not None) and self._wake is not None:
            self._wake.set()

    def _fire(self, src: str, route: str | None) -> None:
        for dst, edge_route in self.plan.succs.get(src, ()):
            if edge_route is not None and edge_route != route:
                continue
            mode = self.plan.join[dst]
            if mode == "any":
                self._make_ready(dst, src)
            elif mode == "any_once":
                if dst not in self._once_done:
                    self._once_done.add(dst)
                    self._make_ready(dst, src)
            else:
                # `fired` only ever holds predecessors of dst, so comparing sizes is the
                # whole check (O(1) per fired edge; issuperset was O(predecessors)).
                fired = self._fired[dst]
                fired.add(src)
                if len(fired) == self.plan.npreds[dst]:
                    fired.clear()
                    self._make_ready(dst, src)

    def _complete(
        self, nid: str, output: Any, result: NodeResult, *, restored: bool = False
    ) -> Coroutine[Any, Any, None] | None:
        """Record the output, run the finish (or restore) hook, fire the successors.

        A hook may be async (user callbacks run off this thread): then the
        successors fire when it is done, and the coroutine doing that is returned
        for the caller to await."""
        self.outputs[nid] = output
        self.order.append(nid)
        rec = self.records[nid]
        if restored:
            rec.status = "restored"
            rec.usage = self._restored_usage.get(nid, rec.usage)
            node = self.plan.nodes[nid]
            self.emit(NodeFinishedEvent(label=rec.label, from_checkpoint=True), node)
        hook = self.on_node_restored if restored else self.on_node_finished
        if hook is not None:
            pending = hook(self.plan.nodes[nid], output)
            if inspect.isawaitable(pending):
                return self._fire_after(pending, nid, result.route)
        self._fire(nid, result.route)
        return None

    async def _fire_after(self, pending: Awaitable[Any], nid: str, route: str | None) -> None:
        await pending
        self._fire(nid, route)

    # ------------------------------------------------------------------ execution
    async def _execute(self, nid: str, trigger: str | None = None) -> None:
        node = self.plan.nodes[nid]
        rec = self.records[nid]
        self._executions += 1
        if self.max_executions is not None and self._executions > self.max_executions:
            self._error = LoopGuardError(
                f"run exceeded {self.max_executions} node executions (at {rec.label!r}); "
                "a loop through a router never ended — raise max_executions or fix the router"
            )
            return
        upstream = {p: self.outputs[p] for p in self.plan.preds[nid] if p in self.outputs}
        try:
            result = await self.run_node(node, upstream=upstream, trigger=trigger)
        except asyncio.CancelledError:
            rec.status = "cancelled"
            raise
        except BaseException as exc:
            if self._error is None:
                self._error = self._wrap(node, exc)
            save_failure(self.checkpointer, self.run_id, nid, rec, descendants(self.records, self.spawned_by, nid))
            return
        rec.executions += 1
        if result.pending is not None:
            # Pausing is a node outcome: no output, successors wait; the run ends paused.
            rec.status = "paused"
            self.paused[nid] = result.pending
            return
        try:
            if self.checkpointer is not None:
                info = rec.to_json()
                info["run_usage"] = self._subtree_usage(nid).model_dump()
                info["route"] = result.route  # a resume fires the same branch without re-asking
                calls = descendants(self.records, self.spawned_by, nid)
                if calls:  # its model and tool calls, so a reader of the store sees them too
                    info[CALLS_KEY] = saved_calls(calls)
                self.checkpointer.save_node(self.run_id, nid, output=result.output, info=info)
            waiting = self._complete(nid, result.output, result)
            if waiting is not None:
                await waiting
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            # A failing checkpoint save or finish hook (output file, task callback) fails the
            # run; raised from this task it would only be an unretrieved exception while the
            # run went on to report success.
            rec.status = "failed"
            rec.error = f"{type(exc).__name__}: {exc}"
            if self._error is None:
                self._error = self._wrap(node, exc)

    async def run_node(
        self,
        node: Node,
        *,
        upstream: dict[str, Any],
        trigger: str | None = None,
        parent: str | None = None,
    ) -> NodeResult:
        """Run one node to completion: steps, spawned children, retries, events, records."""
        rec = self.records.get(node.id)
        if rec is None:
            rec = RunRecord(node_id=node.id, kind=node.kind, label=interpolate(node.display_label, self.inputs),
                            parent=parent)
            self.records[node.id] = rec
        if parent is not None:
            self.spawn_edges.append((parent, node.id))
            self._children.setdefault(parent, []).append(node.id)
        rec.status = "running"
        rec.started_at = time.time()
        start = time.perf_counter()
        ctx = NodeContext(
            run_id=self.run_id,
            node_id=node.id,
            inputs=self.inputs,
            upstream=upstream,
            results=self._results,
            llm=self.llm,
            memory=self.memory,
            emit=self._emitter(node),
            state=self.state,
            trigger=trigger,
        )

        def on_retry(attempt: int, wait: float, exc: BaseException) -> None:
            self.emit(
                NodeRetriedEvent(label=rec.label, attempt=attempt, wait_seconds=wait, error=str(exc)),
                node,
            )

        first_step = True

        def on_attempt(n: int) -> None:
            # attempts = executions + retries: later steps of a resumed node are not attempts.
            nonlocal first_step
            if n > 1 or first_step:
                rec.attempts += 1
            if n == 1 and first_step and self.wants(NodeStartedEvent):
                self.emit(NodeStartedEvent(label=rec.label, attempt=rec.attempts), node)
            first_step = False

        try:
            if self._sem is None:
                self._sem = asyncio.Semaphore(self.max_concurrency)
            while True:
                async with self._sem:
                    result = await run_step_with_policies(node, ctx, on_retry, on_attempt, self._step)
                if result.usage is not None:
                    rec.usage = rec.usage.add(result.usage)
                rec.info.update(result.info)
                if not result.spawn:
                    break
                spawned = await self._run_children(node, result.spawn, upstream)
                ctx = ctx.evolve(resume=result.resume, spawned=spawned, attempt=1)
        except asyncio.CancelledError:
            rec.status = "cancelled"
            rec.duration_ms = (time.perf_counter() - start) * 1000
            raise
        except BaseException as exc:
            rec.status = "failed"
            rec.error = f"{type(exc).__name__}: {exc}"
            rec.duration_ms = (time.perf_counter() - start) * 1000
            self.emit(
                NodeFailedEvent(
                    label=rec.label, error=str(exc), attempts=rec.attempts, duration_ms=rec.duration_ms
                ),
                node,
            )
            raise
        rec.status = "completed"
        rec.duration_ms = (time.perf_counter() - start) * 1000
        if self.wants(NodeFinishedEvent):
            self.emit(
                NodeFinishedEvent(
                    label=rec.label,
                    duration_ms=rec.duration_ms,
                    total_tokens=rec.usage.total_tokens,
                    output_preview=preview(result.output),
                    warning=str(rec.info["warning"]) if rec.info.get("warning") else None,
                    handled_error=str(rec.info.get("error") or "failed") if rec.info.get("failed") else None,
                ),
                node,
            )
        if parent is not None:
            rec.executions += 1
            rec.detail = {"output": result.output}  # what the tool returned, for the saved calls
        return result

    async def _run_children(self, parent: Node, children: list[Node], upstream: dict[str, Any]) -> dict[str, Any]:
        results = await asyncio.gather(
            *(self.run_node(child, upstream=upstream, parent=parent.id) for child in children)
        )
        return {child.id: res.output for child, res in zip(children, results, strict=True)}

    def _wrap(self, node: Node, exc: BaseException) -> BaseException:
        if isinstance(exc, CrewGraphError | KeyboardInterrupt | SystemExit):
            return exc
        if isinstance(exc, asyncio.CancelledError):
            return RunCancelledError(
                f"run cancelled while {interpolate(node.display_label, self.inputs)!r} was running")
        err = NodeExecutionError(
            f"node {node.id!r} ({node.kind}) failed: {type(exc).__name__}: {exc}",
            node_id=node.id,
            kind=node.kind,
        )
        err.__cause__ = exc
        return err

    # ------------------------------------------------------------------ executed graph
    def run_graph(self, status: str, error: str | None) -> RunGraph:
        return executed_graph(self.graph, self.records, self.spawn_edges, run_id=self.run_id,
                              status=status, error=error, inputs=self.inputs)
