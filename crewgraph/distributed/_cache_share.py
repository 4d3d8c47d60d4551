"""The run's tool cache on Ray: each entry reaches the host once, and a worker once.

With ``Crew(cache=True)`` every tool call a run makes adds an entry (tool instance and
arguments -> result) to ``RunState.tool_cache``, which any later task may be answered from.
Shipping the whole cache with each step made task *k* carry *k* entries: O(N^2) bytes for
the crew. Instead the entries form a log (a dict keeps insertion order and the cache only grows): a
step's payload carries the newest few entries (``RECENT_KEPT``) and names the log's length;
older entries are moved to the run's host actor in batches. A worker keeps one cache dict
per log it served and adds the entries it has not seen, fetching from the host only when it
is further behind than the recent ones (in a steady run: never), so a step costs no extra
round trip. The step's tool calls read and write that dict; what they add (at
its end) goes back with the reply, as before.

The values are pickled with the run's step pickler (a cached raw value travels as it would
in a payload), each entry once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, NamedTuple

__all__ = ["CacheRef", "CacheShares", "new_entries", "worker_cache"]


class CacheRef(NamedTuple):
    """What a step's payload says of the run's tool cache: the log's first ``length`` entries,
    of which ``[start, length)`` travel in ``recent`` (pickled) and the rest are on the host."""

    host: str
    key: str
    length: int
    start: int
    recent: tuple[tuple[Any, bytes], ...]


RECENT_KEPT = 32
"""Entries a payload carries itself (a worker a few tasks behind then needs no fetch)."""
RECENT_BYTES = 64 * 1024
"""... and at most this many bytes of them; older entries are on the host only."""


class CacheShares:
    """The driver's side: the log's newest entries (sent with each step) and how much of it
    the host holds (moved there in batches, as they age out of the recent ones)."""

    def __init__(self, session_id: str) -> None:
        self._session_id = session_id
        self._made = 0
        self._keys: list[str] = []
        self.key = ""
        self.sent = 0
        self.on_host = 0
        self._recent: list[tuple[Any, bytes]] = []
        self._recent_bytes = 0
        self._pending: list[Any] = []
        self.clear()

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def sync(self, cache: dict[Any, Any], lock: Any, host: Any, host_name: str, dumps: Any) -> CacheRef | None:
        """Take the entries added since the last step (None while the cache is empty).
        ``dumps(values)``: each value's bytes, as the step pickler makes them."""
        with lock:
            items = list(islice(cache.items(), self.sent, None)) if len(cache) > self.sent else []
        if items:
            blobs = dumps([v for _, v in items])
            self._recent.extend(zip((k for k, _ in items), blobs, strict=True))
            self._recent_bytes += sum(len(b) for b in blobs)
            self.sent += len(items)
            self._age(host)
        if not self.sent:
            return None
        return CacheRef(host_name, self.key, self.sent, self.on_host, tuple(self._recent))

    def _age(self, host: Any) -> None:
        """Move the oldest recent entries to the host, half the window at a time (one append)."""
        if len(self._recent) <= RECENT_KEPT and self._recent_bytes <= RECENT_BYTES:
            return
        moved = 0
        budget = self._recent_bytes
        while moved < len(self._recent) and (
                len(self._recent) - moved > RECENT_KEPT // 2 or budget > RECENT_BYTES // 2):
            budget -= len(self._recent[moved][1])
            moved += 1
        batch, self._recent = self._recent[:moved], self._recent[moved:]
        self._recent_bytes = budget
        self._pending.append(host.extend_cache.remote(self.key, self.on_host, batch))
        self.on_host += moved

    def pending(self, ray: Any) -> list[Any]:
        """The appends a step sent now must wait for (those not known done)."""
        if self._pending:
            _, self._pending = ray.wait(self._pending, num_returns=len(self._pending), timeout=0,
                                        fetch_local=False)
        return list(self._pending)

    def clear(self) -> None:
        """The host holds none of the log (a new host, or the start): a new log, from entry 0."""
        self._made += 1
        self.key = f"{self._session_id}:cache{self._made}"
        self._keys.append(self.key)
        self.sent = self.on_host = self._recent_bytes = 0
        self._recent = []
        self._pending = []


# ---------------------------------------------------------------------- on a worker
@dataclass
class _WorkerCache:
    entries: dict[Any, Any] = field(default_factory=dict)
    """The log's entries fetched, then what steps here added (the steps' ``tool_cache`` itself)."""
    fetched: int = 0


_CACHES: OrderedDict[tuple[str, str], _WorkerCache] = OrderedDict()
_CACHES_KEPT = 4
"""Logs a worker keeps (runs it served lately); older ones are dropped (fetched again if needed)."""
_CACHES_LOCK = threading.Lock()


def worker_cache(ref: CacheRef) -> dict[Any, Any]:
    """On a worker: the run's tool cache, holding at least the log's first ``ref.length``
    entries (those older than the payload's recent ones fetched from the host)."""
    from crewgraph.distributed._pickling import loads

    with _CACHES_LOCK:
        cache = _CACHES.get((ref.host, ref.key))
        if cache is None:
            cache = _CACHES[(ref.host, ref.key)] = _WorkerCache()
            while len(_CACHES) > _CACHES_KEPT:
                _CACHES.popitem(last=False)
        else:
            _CACHES.move_to_end((ref.host, ref.key))
        if cache.fetched < ref.start:
            import ray

            from crewgraph.distributed._context_share import host_handle

            keys, blobs = ray.get(host_handle(ref.host).cache.remote(ref.key, cache.fetched, ref.start),
                                  timeout=60)
            cache.entries.update(zip(keys, (loads(blob) for blob in blobs), strict=True))
            cache.fetched = ref.start
        if cache.fetched < ref.length:
            for key, blob in ref.recent[cache.fetched - ref.start:]:
                cache.entries[key] = loads(blob)
            cache.fetched = ref.length
        return cache.entries


def new_entries(cache: dict[Any, Any], start: int) -> dict[Any, Any]:
    """The entries added to ``cache`` since it held ``start`` (a cache only grows, in order)."""
    return dict(islice(cache.items(), start, None)) if len(cache) > start else {}
