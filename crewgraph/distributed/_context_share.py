"""A sequential crew's default context on Ray: each earlier output's text reaches a worker once.

Task *k* of a sequential crew reads, as its context, the text of every earlier task's
output (``NodePrefix``: the first *k* ids of one shared list). Shipping those texts with
each task is O(k) bytes at task *k*, O(N^2) for the crew; shipping the outputs themselves
(each ``TaskOutput`` carries its prompt, which holds the context before it) was O(k^2).

Instead, the driver sends each output's :class:`~crewgraph.graph.reads.OutputText` once to
the run's host actor (:mod:`crewgraph.distributed._hosted`), appended to one list per
prefix pool, and a step's payload names the pool and a length (``SharedPrefix`` reduces a
``NodePrefix`` to that). A worker keeps the pools it has seen (ids and texts) and asks the
host only for the entries it lacks; the step then reads them through ``ctx.results``. So
per task the driver sends the new entry once and a worker fetches what it has not seen:
bytes per task stop growing with the run.

Ordering: a step's Ray task takes the host's pending appends as arguments, so it starts
only once the entries it names are on the host.

On the way back the same holds: a task's prompt, kept in its ``TaskOutput.messages`` and in
the run graph's model-call record, holds its context as a ``ContextRef`` over the worker's
entry list of a pool. The reply pickles such a ref as (pool key, count) and the driver
rebuilds it over its own entry list of that pool (the same texts, made as the worker makes
them: ``entry_text``), so a reply does not grow with the tasks before it either.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from crewgraph._internal.shared_prompt import ContextRef
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.reads import OutputText
from crewgraph.nodes._context import entry_text

__all__ = ["ContextShares", "SharedTexts", "driver_context", "shared_prefix", "worker_entry_lists", "worker_pool"]


@dataclass
class _DriverPool:
    key: str
    pool: list[str]
    """The driver's id list itself (kept, so its ``id`` names no other list while the run lasts)."""
    sent: int = 0
    index: dict[str, int] = field(default_factory=dict)
    """Node id -> its position in the pool, for the ids sent."""
    entries: list[str] = field(default_factory=list)
    """The context entry text of each id sent (as a worker's ``prefix_context`` makes it): the
    list the refs in the replies are rebuilt over."""


_DRIVER_ENTRIES: dict[str, list[str]] = {}
"""Pool key -> the driver's entry list, while its session lasts (read by ``driver_context``)."""


class ContextShares:
    """The driver's side: which entries of which pools the host actor has."""

    def __init__(self, session_id: str) -> None:
        self._session_id = session_id
        self._pools: dict[int, _DriverPool] = {}
        self._pending: list[Any] = []
        """Refs of appends not yet seen done: the next step waits for them."""
        self._made = 0
        self._keys: list[str] = []
        """Every pool key made (a host lost mid-run means new pools, under new keys)."""

    @property
    def keys(self) -> list[str]:
        return [pool.key for pool in self._pools.values()]

    def extend(self, prefix: NodePrefix, output_of: Any, host: Any) -> _DriverPool | None:
        """Make the host hold the first ``len(prefix)`` entries of the prefix's pool (sending
        only those it lacks); None when an output is missing (the step is then sent its texts)."""
        pool = self._pools.get(prefix.pool_id)
        if pool is None:
            self._made += 1
            pool = _DriverPool(f"{self._session_id}:ctx{self._made}", prefix._pool)
        wanted = len(prefix)
        if pool.sent >= wanted:
            return pool
        items: list[tuple[str, OutputText]] = []
        for i in range(pool.sent, wanted):
            nid = prefix[i]
            output = output_of(nid)
            if output is None:  # not there (a restored run without it): no shared list
                return None
            items.append((nid, OutputText.of(output, nid)))
        if prefix.pool_id not in self._pools:
            self._pools[prefix.pool_id] = pool
            self._keys.append(pool.key)
            _DRIVER_ENTRIES[pool.key] = pool.entries
        self._pending.append(host.extend_context.remote(pool.key, pool.sent, items))
        for offset, (nid, text) in enumerate(items):
            pool.index[nid] = pool.sent + offset
            pool.entries.append(entry_text(text.name, text.raw))
        pool.sent = wanted
        return pool

    def sent(self, prefix: NodePrefix) -> _DriverPool | None:
        """The pool of ``prefix`` if the host holds all of its entries."""
        pool = self._pools.get(prefix.pool_id)
        return pool if pool is not None and pool.pool is prefix._pool and pool.sent >= len(prefix) else None

    def pending(self, ray: Any) -> list[Any]:
        """The appends a step sent now must wait for (those not known done)."""
        if self._pending:
            _, self._pending = ray.wait(self._pending, num_returns=len(self._pending), timeout=0,
                                        fetch_local=False)
        return list(self._pending)

    def clear(self) -> None:
        """The host holds none of the pools any more (a new host): they start again, under new keys."""
        self._pools.clear()
        self._pending.clear()

    def forget(self) -> None:
        """The session ended: no reply will name these pools again."""
        self.clear()
        for key in self._keys:
            _DRIVER_ENTRIES.pop(key, None)
        self._keys.clear()


def driver_context(key: str, count: int, separator: str) -> ContextRef:
    """On the driver: a worker's ref to the first ``count`` entries of pool ``key``, over the
    driver's own entry list of that pool."""
    entries = _DRIVER_ENTRIES.get(key)
    if entries is None or len(entries) < count:
        held = "none" if entries is None else len(entries)
        raise LookupError(f"shared context {key!r}: a reply refers to {count} entries, the driver holds {held}")
    return ContextRef(entries, count, separator)


# ---------------------------------------------------------------------- on the host actor
class HostContexts:
    """The host actor's lists: per key, ids and texts in pool order (appends may arrive out
    of order; each is applied once the entries before it are there)."""

    def __init__(self) -> None:
        self.ids: dict[str, list[str]] = {}
        self.texts: dict[str, list[OutputText]] = {}
        self.early: dict[str, dict[int, list[tuple[str, OutputText]]]] = {}

    def extend(self, key: str, start: int, items: list[tuple[str, OutputText]]) -> None:
        early = self.early.setdefault(key, {})
        early[start] = items
        ids = self.ids.setdefault(key, [])
        texts = self.texts.setdefault(key, [])
        while (batch := early.pop(len(ids), None)) is not None:
            ids.extend(nid for nid, _ in batch)
            texts.extend(text for _, text in batch)

    def get(self, key: str, start: int, stop: int) -> tuple[list[str], list[OutputText]]:
        ids = self.ids.get(key, [])
        if len(ids) < stop:
            raise LookupError(f"shared list {key!r}: {len(ids)} entries on the host, {stop} asked for")
        return ids[start:stop], self.texts[key][start:stop]

    def drop(self, keys: list[str]) -> None:
        for key in keys:
            self.ids.pop(key, None)
            self.texts.pop(key, None)
            self.early.pop(key, None)


# ---------------------------------------------------------------------- on a worker
@dataclass
class WorkerPool:
    ids: list[str] = field(default_factory=list)
    texts: dict[str, OutputText] = field(default_factory=dict)
    built: dict[int, Any] = field(default_factory=dict)
    """This process's ``prefix_context`` cache for the pool (the text built so far): the next
    task of the run on this worker extends it rather than building it again."""


_POOLS: OrderedDict[tuple[str, str], WorkerPool] = OrderedDict()
_POOLS_KEPT = 4
"""Pools a worker keeps (runs it served lately); older ones are dropped (fetched again if needed)."""
_POOLS_LOCK = threading.Lock()
_HOST_HANDLES: dict[str, Any] = {}


def host_handle(host: str) -> Any:
    """On a worker: the run's host actor of that name (looked up once per worker)."""
    handle = _HOST_HANDLES.get(host)
    if handle is None:
        import ray

        from crewgraph.distributed._hosted import NAMESPACE

        handle = _HOST_HANDLES[host] = ray.get_actor(host, namespace=NAMESPACE)
    return handle


def worker_pool(host: str, key: str, length: int | None = None) -> WorkerPool:
    """This worker's copy of a pool, holding at least ``length`` entries (fetched from the host)."""
    with _POOLS_LOCK:
        pool = _POOLS.get((host, key))
        if pool is None:
            pool = _POOLS[(host, key)] = WorkerPool()
            while len(_POOLS) > _POOLS_KEPT:
                _POOLS.popitem(last=False)
        else:
            _POOLS.move_to_end((host, key))
        if length is not None and len(pool.ids) < length:
            import ray

            ids, texts = ray.get(host_handle(host).context.remote(key, len(pool.ids), length), timeout=60)
            pool.ids.extend(ids)
            pool.texts.update(zip(ids, texts, strict=True))
        return pool


def worker_entry_lists() -> dict[int, str]:
    """On a worker: ``id`` of each entry list its pools' built contexts hold -> the pool's key
    (what a reply's refs over them are sent back as)."""
    with _POOLS_LOCK:
        return {id(built[2]): key for (_, key), pool in _POOLS.items()
                for built in pool.built.values() if len(built) == 3}


def shared_prefix(host: str, key: str, length: int) -> NodePrefix:
    """On a worker: the ``NodePrefix`` a driver sent as (host, pool key, length)."""
    return NodePrefix(worker_pool(host, key, length).ids, length)


class SharedTexts(Mapping[str, Any]):
    """A step's ``ctx.results`` on a worker: what the driver sent, then the shared texts."""

    __slots__ = ("_own", "_texts")

    def __init__(self, own: dict[str, Any], texts: Mapping[str, OutputText]) -> None:
        self._own = own
        self._texts = texts

    def __setitem__(self, key: str, value: Any) -> None:
        self._own[key] = value  # a chain's outputs, for the steps after them

    def __getitem__(self, key: str) -> Any:
        if key in self._own:
            return self._own[key]
        return self._texts[key]

    def __iter__(self) -> Iterator[str]:
        yield from self._own
        yield from (k for k in self._texts if k not in self._own)

    def __len__(self) -> int:
        return len(self._own) + sum(1 for k in self._texts if k not in self._own)
