"""Rate limits that hold across the cluster: one window per limit, in one actor.

Locally an ``RPMLimiter`` is a sliding window in one process. On Ray, 50
workers each holding a copy would let 50x the limit through, so every copy
that travels is replaced by a :class:`ClusterLimiter`: same interface, but
each slot is reserved from one window kept by an actor (its clock is the
only clock, so workers on machines whose clocks differ still agree).

- A crew's or an agent's ``max_rpm`` (a limiter of the run) lives on the
  driver's host actor, for the run.
- A model endpoint's ``max_rpm`` (``LLM(max_rpm=...)``, shared by every client of
  that model and endpoint) gets a named, detached actor per endpoint and limit,
  so separate runs and drivers on one cluster share it too, as clients in one
  process share it locally.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

__all__ = ["ClusterLimiter", "endpoint_limiter", "install_endpoint_limits"]

_ENDPOINT_ACTORS: dict[str, Any] = {}
_LOCK = threading.Lock()


class _Window:
    """A detached actor holding one endpoint's window."""

    def __init__(self, max_rpm: int | None, period: float) -> None:
        from crewgraph.llm.rate_limit import RPMLimiter

        self.limiter = RPMLimiter(max_rpm, period=period)

    def reserve(self, key: str = "") -> float:
        return float(self.limiter._reserve())


class ClusterLimiter:
    """``RPMLimiter``'s interface over a window kept by an actor (``actor`` is its name).

    ``key`` selects the window inside a host actor; an endpoint actor has one window."""

    def __init__(self, actor: str, key: str, max_rpm: int | None, period: float = 60.0) -> None:
        self.actor = actor
        self.key = key
        self.max_rpm = max_rpm or None
        self.period = period
        self._handle: Any = None

    def __reduce__(self) -> Any:
        return (ClusterLimiter, (self.actor, self.key, self.max_rpm, self.period))

    @property
    def enabled(self) -> bool:
        return self.max_rpm is not None

    def _actor(self) -> Any:
        if self._handle is None:
            import ray

            from crewgraph.distributed._hosted import NAMESPACE

            self._handle = ray.get_actor(self.actor, namespace=NAMESPACE)
        return self._handle

    async def acquire(self) -> float:
        """Wait (without blocking the loop) until the shared window has a slot; seconds waited."""
        if self.max_rpm is None:
            return 0.0
        waited = 0.0
        while (delay := float(await self._actor().reserve.remote(self.key))) > 0:
            await asyncio.sleep(delay)
            waited += delay
        return waited

    def acquire_sync(self) -> float:
        if self.max_rpm is None:
            return 0.0
        import ray

        waited = 0.0
        while (delay := float(ray.get(self._actor().reserve.remote(self.key), timeout=60))) > 0:
            time.sleep(delay)
            waited += delay
        return waited

    def try_acquire(self) -> bool:
        import ray

        return self.max_rpm is None or float(ray.get(self._actor().reserve.remote(self.key), timeout=60)) == 0.0

    def __repr__(self) -> str:
        return f"ClusterLimiter({self.actor!r}, max_rpm={self.max_rpm!r}, period={self.period!r})"


def endpoint_limiter(key: str, max_rpm: int | None) -> Any:
    """The cluster-wide limiter of one model endpoint at ``max_rpm`` (its actor made on first use)."""
    from crewgraph.llm.rate_limit import RPMLimiter

    if not max_rpm:
        return RPMLimiter(None)
    import ray

    from crewgraph.distributed._hosted import NAMESPACE

    name = f"crewgraph-rpm:{max_rpm}:{key}"
    with _LOCK:
        if name not in _ENDPOINT_ACTORS:
            cls = ray.remote(num_cpus=0)(_Window)
            _ENDPOINT_ACTORS[name] = cls.options(
                name=name, namespace=NAMESPACE, get_if_exists=True, lifetime="detached"
            ).remote(max_rpm, 60.0)
    limiter = ClusterLimiter(name, "", max_rpm)
    limiter._handle = _ENDPOINT_ACTORS[name]
    return limiter


def install_endpoint_limits() -> None:
    """In this process (a worker), model clients draw their ``max_rpm`` from the cluster."""
    from crewgraph.llm import rate_limit

    rate_limit.set_shared_limiter_factory(endpoint_limiter)
