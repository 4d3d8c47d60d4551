"""One run on Ray: checks at kickoff, then each step shipped to a worker and its reply applied.

At kickoff (``RayExecutor.prepare``), before any token is spent:

- every node that will run on a worker is pickled once, so a tool holding a socket or
  a lambda over a database handle is an error naming the node and the object now, not
  half-way through the run; embedded memory is refused the same way;
- every node's resource request (``Task(resources=...)``, a tool's ``resources``) is
  checked against what the cluster has: a request no node of the cluster can meet
  would wait forever.

During the run, :meth:`RaySession.run_step` is the scheduler's step function.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crewgraph.distributed._cache_share import CacheShares
from crewgraph.distributed._chain_worker import run_remote_chain
from crewgraph.distributed._context_share import ContextShares, shared_prefix
from crewgraph.distributed._executor import WorkerLostError, await_ref
from crewgraph.distributed._kickoff_check import check_shippable, global_hooks, node_label
from crewgraph.distributed._pickling import StepPickler, dumps_checked, loads
from crewgraph.distributed._reply import apply_reply, apply_state, located, record_usage
from crewgraph.distributed._worker import (
    CallPayload,
    StepPayload,
    run_remote_call,
    run_remote_step,
)
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.reads import OutputText, Reads
from crewgraph.nodes._context import PREFIX_CACHE_KEY

if TYPE_CHECKING:
    from crewgraph.distributed._executor import RayExecutor
    from crewgraph.graph.context import NodeContext
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.graph.node import Node, NodeResult

__all__ = ["DRIVER_KINDS", "RaySession"]

DRIVER_KINDS = frozenset({"join", "condition", "given_context", "task_result"})
"""Bookkeeping steps: they run on the driver (a round trip would cost more than they do)."""

METHOD_KINDS = frozenset({"flow_method", "router"})
"""Flow methods: the bookkeeping stays on the driver, the method's own call is shipped."""

_FLOW_RUN_KEY = "crewgraph.flow"
_DRIVER_EXTRAS = frozenset({_FLOW_RUN_KEY, PREFIX_CACHE_KEY})
"""Run-state extras that stay on the driver: the flow's run state (a flow method's call ships
its own slice), and the default context's built text (a cache of this process; a worker keeps
its own, see ``_context_share``)."""
_sessions = itertools.count(1)
_REMOTES: dict[str, Any] = {}


def _remote(ray: Any, fn: Any) -> Any:
    job = ray.get_runtime_context().get_job_id()
    key = f"{job}:{fn.__name__}"
    if key not in _REMOTES:
        _REMOTES[key] = ray.remote(max_retries=0)(fn)
    return _REMOTES[key]


def ships(node: Node) -> bool:
    """Whether this node's steps run on a worker."""
    return node.kind not in DRIVER_KINDS and not getattr(node, "human_input", False)


class RaySession:
    """The scheduler's step function for one run on Ray."""

    def __init__(
        self,
        executor: RayExecutor,
        ray: Any,
        graph: ExecutionGraph,
        *,
        state: Any = None,
        memory: Any = None,
        llm: Any = None,
        chains: Mapping[str, str] | None = None,
    ) -> None:
        """``chains``: the scheduler's grouping of each task's nodes (node id -> the node that
        runs right after it, only because of it); each chain is shipped as one Ray task."""
        self.executor = executor
        self.ray = ray
        self.id = f"{ray.get_runtime_context().get_job_id()}-{next(_sessions)}"
        self._host: Any = None
        self._host_name = ""
        self._hosted: dict[int, tuple[Any, str]] = {}
        self._hosting: Any = None
        self._windows: dict[int, tuple[Any, str]] = {}
        self._tools: dict[tuple[Any, str], Any] = {}
        """The driver's tool objects by (agent role, name): tool calls a worker spawned come back
        with copies, and a tool's usage count must be counted on one object."""
        self._shares = ContextShares(self.id)
        self._checking = False
        self._caches = CacheShares(self.id)
        self._pickler = StepPickler(self._host_llm, self._share_limiter, self._share_prefix)
        self._step_fn = _remote(ray, run_remote_step)
        self._call_fn = _remote(ray, run_remote_call)
        self._chain_fn = _remote(ray, run_remote_chain)
        nodes = graph.digraph.nodes
        self._chain_nodes: dict[str, Node] = {
            u: nodes[v]["node"] for u, v in (chains or {}).items() if u in nodes and v in nodes}
        self._index: dict[str, Any] = {}
        """Node id -> the ChainBatch holding (or computing) its next step's reply."""
        self._live: set[Any] = set()
        try:
            self._check(graph, state, memory, llm)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ kickoff checks
    def _check(self, graph: ExecutionGraph, state: Any, memory: Any, llm: Any) -> None:
        """Every node (and what the run sends with it) can go to a worker: fail at kickoff,
        naming the node, rather than mid-run."""
        self._checking = True
        try:
            self._check_all(graph, state, memory, llm)
        finally:
            self._checking = False

    def _check_all(self, graph: ExecutionGraph, state: Any, memory: Any, llm: Any) -> None:
        extras = None if state is None else {
            k: v for k, v in state.extras.items() if k not in _DRIVER_EXTRAS}
        check_shippable(
            self._pickler, self.executor, self.ray.cluster_resources(), graph, ships=ships,
            tools=self._tools, extras=extras, state=state, memory=memory, llm=llm)

    # ------------------------------------------------------------------ stand-ins
    def _host_actor(self) -> Any:
        if self._host is None:
            from crewgraph.distributed._hosted import host_actor, host_name

            self._host = host_actor(self.ray)
            self._host_name = host_name(self.ray)
        return self._host

    def _on_host(self, method: str, *args: Any) -> Any:
        """Call the host actor and wait (bounded); a host that died is made again, once."""
        try:
            return self.ray.get(getattr(self._host_actor(), method).remote(*args), timeout=60)
        except self.ray.exceptions.ActorDiedError:
            from crewgraph.distributed._hosted import host_actor

            self._host = host_actor(self.ray, fresh=True)
            self._shares.clear()  # the new host holds no shared context, no tool cache
            self._caches.clear()
            return self.ray.get(getattr(self._host, method).remote(*args), timeout=60)

    def _host_llm(self, obj: Any) -> Any:
        if obj is self._hosting:
            return NotImplemented  # the object itself, on its way to the host
        from crewgraph.distributed._hosted import HostedLLM, facts_of

        entry = self._hosted.get(id(obj))
        if entry is None:
            key = f"{self.id}:llm{len(self._hosted) + 1}"
            self._hosting = obj
            try:
                payload = dumps_checked(self._pickler, obj, f"model {obj!r}")
            finally:
                self._hosting = None
            self._on_host("put", key, payload)
            entry = self._hosted[id(obj)] = (obj, key)
        return (HostedLLM, (self._host_name, entry[1], facts_of(obj)))

    def _share_limiter(self, obj: Any) -> Any:
        from crewgraph.distributed._limits import ClusterLimiter

        entry = self._windows.get(id(obj))
        if entry is None:
            key = f"{self.id}:rpm{len(self._windows) + 1}"
            self._on_host("window", key, obj.max_rpm, obj.period)
            entry = self._windows[id(obj)] = (obj, key)
        return (ClusterLimiter, (self._host_name, entry[1], obj.max_rpm, obj.period))

    def _share_prefix(self, prefix: NodePrefix) -> Any:
        if self._checking:  # ids are strings: a kickoff check need not pickle each task's k of them
            return (NodePrefix, ([], 0))
        pool = self._shares.sent(prefix)
        if pool is None:
            return NotImplemented
        return (shared_prefix, (self._host_name, pool.key, len(prefix)))

    # ------------------------------------------------------------------ steps
    async def run_step(self, node: Node, ctx: NodeContext) -> NodeResult:
        if not ships(node):
            return await node.run(ctx)
        if node.kind in METHOD_KINDS and callable(getattr(node, "fn", None)):
            remote = _RemoteMethod(self, node, ctx.run_id)
            return await dataclasses.replace(node, fn=remote, is_async=True).run(ctx)  # type: ignore[call-arg]
        if not self.executor.batch_chains:
            return await self._run_alone(node, ctx)
        batch = self._index.get(node.id)
        if batch is not None:
            reply = await batch.take(node.id, ctx)
            if reply is not None:  # computed in a chain's Ray task already: no round trip
                return apply_reply(ctx, reply, self._driver_tool(node))
        return await self._run_chain(node, ctx)

    def _payload(self, node: Node, ctx: NodeContext, chain: Mapping[str, Node] | None = None
                 ) -> tuple[Node, Any, StepPayload, list[Any]]:
        """What a step ships with: the node (with the driver's own tool object), the slice of
        the run it reads (``Node.reads``: of the nodes chained after it too), and the host's
        appends its Ray task must wait for."""
        state = ctx.state
        tool = self._driver_tool(node)
        if tool is not None and tool is not getattr(node, "tool", None):
            node = dataclasses.replace(node, tool=tool)  # type: ignore[call-arg]
        upstream, results, shared = self._reads(node, ctx, tuple((chain or {}).values()))
        cache = self._caches.sync(state.tool_cache, state.lock, self._host_actor(), self._host_name,
                                  self._dump_values)
        payload = StepPayload(
            node=node,
            run_id=ctx.run_id,
            inputs=ctx.inputs,
            upstream=upstream,
            results=results,
            llm=ctx.llm,
            memory=ctx.memory,
            tool_cache={},
            cache=cache,
            limiters=dict(state.limiters),
            extras={k: v for k, v in state.extras.items() if k not in _DRIVER_EXTRAS},
            streaming=state.stream is not None,
            resume=ctx.resume,
            spawned=ctx.spawned,
            attempt=ctx.attempt,
            trigger=ctx.trigger,
            global_hooks=global_hooks(),
            shared=shared,
            listened=_listened(ctx),
        )
        return node, tool, payload, self._shares.pending(self.ray) + self._caches.pending(self.ray)

    def _dump_values(self, values: list[Any]) -> list[bytes]:
        return [dumps_checked(self._pickler, value, "a tool's cached result") for value in values]

    def _reads(self, node: Node, ctx: NodeContext, chain: tuple[Node, ...]
               ) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, str]]]:
        """The upstream, results and shared context pools a step ships: what ``node.reads()``
        (and each chained node's) names, beyond the upstream; an upstream output the node
        reads only as text travels as its ``OutputText``."""
        upstream = ctx.upstream
        results: dict[str, Any] = {}
        shared: list[tuple[str, str]] = []
        own = node.reads()
        own_pool: Any = None
        for reads in (own, *(other.reads() for other in chain)):
            for nid in reads.outputs:
                if nid not in upstream and (value := ctx.results.get(nid)) is not None:
                    results[nid] = value
            texts = reads.texts
            if not texts:
                continue
            if isinstance(texts, NodePrefix):
                pool = self._shares.extend(texts, ctx.output_of, self._host_actor())
                if pool is not None:
                    if (self._host_name, pool.key) not in shared:
                        shared.append((self._host_name, pool.key))
                    if reads is own:
                        own_pool = pool
                    continue
            for nid in texts:
                if nid not in upstream and nid not in results and (value := ctx.results.get(nid)) is not None:
                    results[nid] = OutputText.of(value, nid)
        return _as_text(upstream, own, own_pool), results, shared

    async def _run_alone(self, node: Node, ctx: NodeContext) -> NodeResult:
        """One step, one Ray task (``RayExecutor(batch_chains=False)``)."""
        node, tool, payload, waits = self._payload(node, ctx)
        what = node_label(node)
        data = dumps_checked(self._pickler, payload, what)
        self.executor.count_dispatch()
        ref = self._step_fn.options(**self.executor.step_options(node)).remote(data, *waits)
        reply = loads(await self._await(ref, what, node.id))
        return apply_reply(ctx, reply, tool)

    async def _run_chain(self, node: Node, ctx: NodeContext) -> NodeResult:
        """This step and what follows it in its task's chain, as one Ray task (see ``_chain``)."""
        from crewgraph.distributed._chain import ChainBatch
        from crewgraph.distributed._chain_worker import ChainPayload

        options = self.executor.step_options(node)

        def joins(other: Any) -> bool:
            return ships(other) and self.executor.step_options(other) == options

        chain: dict[str, Any] = {}
        current = node.id
        while (following := self._chain_nodes.get(current)) is not None and joins(following):
            chain[current] = following
            current = following.id
        node, tool, payload, waits = self._payload(node, ctx, chain)
        what = node_label(node)
        data = dumps_checked(self._pickler, ChainPayload(first=payload, chain=chain, options=options,
                                                         executor=self.executor), what)
        batch = ChainBatch(node.id, chain, joins, self._route, self._unroute)
        self._live.add(batch)
        batch.on_end = self._forget
        self.executor.count_dispatch()
        generator = self._chain_fn.options(**options).remote(data, *waits)
        batch.start(generator, loads, lambda exc: self._failure(exc, what, node.id), self._cancel_ref)
        reply = await batch.take(node.id, ctx)
        if reply is None:
            raise RuntimeError(f"{what}: its Ray task ended without running it")
        return apply_reply(ctx, reply, tool)

    def _forget(self, batch: Any) -> None:
        self._live.discard(batch)

    def _route(self, nid: str, batch: Any) -> None:
        self._index[nid] = batch

    def _unroute(self, nid: str, batch: Any) -> None:
        if self._index.get(nid) is batch:
            del self._index[nid]

    def _cancel_ref(self, ref: Any) -> None:
        try:
            self.ray.cancel(ref)
        except Exception:  # finished meanwhile, or the cluster is gone: nothing left to stop
            pass

    def _driver_tool(self, node: Node) -> Any:
        """For a tool call: the driver's own tool object of that agent and name, if known."""
        tool = getattr(node, "tool", None)
        if tool is None:
            return None
        return self._tools.get((getattr(node, "agent_role", None), str(getattr(tool, "name", ""))), tool)

    async def call_method(self, node: Node, run_id: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        fn = node.fn  # type: ignore[attr-defined]
        what = f"flow method {getattr(node, 'method', node.id)!r}"
        payload = CallPayload(fn=fn, args=args, kwargs=kwargs, run_id=run_id, global_hooks=global_hooks())
        data = dumps_checked(self._pickler, payload, what)
        self.executor.count_dispatch()
        ref = self._call_fn.options(**self.executor.step_options(node)).remote(data)
        reply = loads(await self._await(ref, what, node.id))
        apply_state(getattr(getattr(fn, "__self__", None), "state", None), reply.state_changes, reply.state_removed)
        record_usage(reply.usage)
        if reply.error is not None:
            raise located(reply.error, reply.pid)
        return reply.value

    async def _await(self, ref: Any, what: str, node_id: str) -> Any:
        try:
            return await await_ref(ref)
        except Exception as exc:
            raise self._failure(exc, what, node_id) from None

    def _failure(self, exc: BaseException, what: str, node_id: str) -> BaseException:
        """The error a step raises for a Ray error: a lost worker is a (retryable) WorkerLostError,
        a task error its cause."""
        exceptions = self.ray.exceptions
        lost = tuple(
            getattr(exceptions, name)
            for name in ("WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError", "ObjectLostError",
                         "OwnerDiedError", "ActorDiedError")
            if hasattr(exceptions, name)
        )
        if isinstance(exc, lost):
            return WorkerLostError(
                f"{what}: the Ray worker running it died before the step finished "
                f"({type(exc).__name__}); the node is retried under its retry policy",
                node_id=node_id,
            )
        if isinstance(exc, exceptions.RayTaskError):
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BaseException):
                return cause
            return RuntimeError(f"{what} failed on a Ray worker: {exc}")
        return exc

    # ------------------------------------------------------------------ end of run
    def close(self) -> None:
        """Stop the chains' Ray tasks still running; copy hosted models' state back into the
        driver's objects, free the run's windows."""
        live, self._live = self._live, set()
        self._index.clear()
        for batch in list(live):
            batch.cancel()
        if self._host is None:
            return
        host, self._host = self._host, None
        keys = [key for _, key in self._hosted.values()] + [key for _, key in self._windows.values()]
        keys += self._shares.keys + self._caches.keys
        self._shares.forget()
        try:
            for obj, key in self._hosted.values():
                state = loads(self.ray.get(host.export.remote(key), timeout=30))
                vars(obj).update(state)
        finally:
            if keys:
                host.drop.remote(keys)
            self._hosted.clear()
            self._windows.clear()


class _RemoteMethod:
    """Stands in for a flow method's bound callable: the call itself runs on a worker."""

    def __init__(self, session: RaySession, node: Node, run_id: str) -> None:
        self._session = session
        self._node = node
        self._run_id = run_id

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return await self._session.call_method(self._node, self._run_id, args, kwargs)


def _as_text(upstream: dict[str, Any], reads: Reads, pool: Any) -> dict[str, Any]:
    """The upstream a step ships: the outputs its node reads whole (``reads.upstream``, None:
    all; and ``reads.outputs``), and those it reads only as text (``reads.texts``) as their
    ``OutputText`` (a ``TaskOutput`` carries its whole prompt), or not at all when the text is
    in a shared pool (``pool``: the worker reads it there); not the others."""
    texts = reads.texts
    if not upstream or (not texts and reads.upstream is None):
        return upstream
    whole = set(reads.outputs)
    if reads.upstream is not None:
        whole.update(reads.upstream)
    names: Any = set(texts) if texts and pool is None else ()
    length = len(texts)
    shipped: dict[str, Any] = {}
    for nid, value in upstream.items():
        if nid in whole or value is None:
            shipped[nid] = value
        elif pool is not None and pool.index.get(nid, length) < length:
            continue  # by position, not a scan of the prefix
        elif nid in names:
            shipped[nid] = OutputText.of(value, nid)
        elif reads.upstream is None:
            shipped[nid] = value
    return shipped


def _listened(ctx: NodeContext) -> Any:
    """Who listens on this side, for the worker to build only the events someone takes."""
    listened = getattr(ctx.emit, "listened", None)
    return listened() if callable(listened) else None
