"""Objects whose state must stay in one place, hosted in one Ray actor per driver.

A model client that is configuration (``crewgraph.LLM``) is rebuilt on each
worker. Other model objects keep state that every step must see: a
``FakeLLM``'s script (the second step must get the second reply, whichever
worker runs it), a custom client's counters. Those are *hosted*: the object
lives in one actor, every worker calls it through a :class:`HostedLLM` proxy,
and at the end of the run its state is copied back into the driver's object
(so ``fake.calls`` reads as after a local run).

The same actor keeps a sequential crew's shared context texts (see ``_context_share``)
and the run-scoped rate-limit windows (a crew's or an agent's ``max_rpm``): one window
per limiter, shared by every worker. Limits of a model endpoint outlive a run and get
their own named actor (see ``_limits``).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from crewgraph.llm.base import BaseLLM

__all__ = ["NAMESPACE", "HostedLLM", "host_actor"]

NAMESPACE = "crewgraph"
"""Ray namespace of crewgraph's named actors."""

_HOSTS: dict[str, Any] = {}
_HOSTS_LOCK = threading.Lock()


class _Host:
    """The actor: hosted objects by key, and run-scoped rate-limit windows by key."""

    def __init__(self) -> None:
        from crewgraph.distributed._context_share import HostContexts

        self.objects: dict[str, Any] = {}
        self.windows: dict[str, Any] = {}
        self.contexts = HostContexts()
        self.caches = HostContexts()
        """The runs' tool caches, as logs of (key, pickled value) (see ``_cache_share``)."""

    def put(self, key: str, payload: bytes) -> None:
        from crewgraph.distributed._pickling import loads

        self.objects[key] = loads(payload)

    async def acall(self, key: str, messages: Any, tools: Any, response_model: Any, kwargs: dict[str, Any]) -> Any:
        deltas: list[Any] = []
        if kwargs.pop("stream_deltas", False):
            kwargs["on_chunk"] = deltas.append
        reply = await self.objects[key].acall(messages, tools=tools, response_model=response_model, **kwargs)
        return reply, deltas

    def export(self, key: str) -> bytes:
        from ray import cloudpickle

        obj = self.objects[key]
        state = {k: v for k, v in vars(obj).items() if not _is_lock(v)}
        return bytes(cloudpickle.dumps(state))

    def drop(self, keys: list[str]) -> None:
        for key in keys:
            self.objects.pop(key, None)
            self.windows.pop(key, None)
        self.contexts.drop(keys)
        self.caches.drop(keys)

    def extend_context(self, key: str, start: int, items: list[Any]) -> None:
        """A run's shared context texts, appended (see ``_context_share``)."""
        self.contexts.extend(key, start, items)

    def context(self, key: str, start: int, stop: int) -> Any:
        return self.contexts.get(key, start, stop)

    def extend_cache(self, key: str, start: int, items: list[Any]) -> None:
        """A run's new tool-cache entries, appended (see ``_cache_share``)."""
        self.caches.extend(key, start, items)

    def cache(self, key: str, start: int, stop: int) -> Any:
        return self.caches.get(key, start, stop)

    def window(self, key: str, max_rpm: int | None, period: float) -> None:
        from crewgraph.llm.rate_limit import RPMLimiter

        if key not in self.windows:
            self.windows[key] = RPMLimiter(max_rpm, period=period)

    def reserve(self, key: str) -> float:
        return float(self.windows[key]._reserve())


def _is_lock(value: Any) -> bool:
    return type(value) in (type(threading.Lock()), type(threading.RLock()))


def host_name(ray: Any) -> str:
    return f"crewgraph-host-{ray.get_runtime_context().get_job_id()}"


def host_actor(ray: Any, *, fresh: bool = False) -> Any:
    """This driver's host actor, created on first use.

    Detached, so that no reference counting can collect it while a run uses it (on a loaded
    machine a pending actor was seen cancelled that way); this process kills it when it exits.
    ``fresh``: the cached one died, make a new one."""
    name = host_name(ray)
    with _HOSTS_LOCK:
        handle = None if fresh else _HOSTS.get(name)
        if handle is None:
            if fresh:
                try:
                    ray.kill(ray.get_actor(name, namespace=NAMESPACE))
                except Exception:
                    pass
            cls = ray.remote(num_cpus=0, max_concurrency=1000)(_Host)
            handle = _HOSTS[name] = cls.options(
                name=name, namespace=NAMESPACE, get_if_exists=True, lifetime="detached"
            ).remote()
            if len(_HOSTS) == 1 and not fresh:
                import atexit

                atexit.register(_kill_hosts)
        return handle


def _kill_hosts() -> None:
    try:
        import ray

        if not ray.is_initialized():
            return
        for handle in list(_HOSTS.values()):
            try:
                ray.kill(handle)
            except Exception:
                pass
    finally:
        _HOSTS.clear()


def _named_host(name: str) -> Any:
    import ray

    return ray.get_actor(name, namespace=NAMESPACE)


class HostedLLM(BaseLLM):
    """A worker's stand-in for a model hosted on the driver's host actor.

    What nodes read synchronously (``model``, ``supports_function_calling()``, the
    context window, the rate-limit key, simple settings) was copied when the model was
    hosted; every call goes to the hosted object. A streaming call gets the hosted
    model's deltas once the reply is complete, in order.
    """

    def __init__(self, host: str, key: str, facts: dict[str, Any]) -> None:
        self._host_name = host
        self._key = key
        self._facts = facts
        self._handle: Any = None
        for name, value in facts.get("attrs", {}).items():
            setattr(self, name, value)

    def __reduce__(self) -> Any:
        return (HostedLLM, (self._host_name, self._key, self._facts))

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: Any = None,
        response_model: Any = None,
        **kwargs: Any,
    ) -> Any:
        on_chunk = kwargs.pop("on_chunk", None)
        kwargs.pop("emit", None)  # events of the hosted client stay with it
        kwargs = {k: v for k, v in kwargs.items() if not callable(v)}
        if on_chunk is not None:
            kwargs["stream_deltas"] = True
        if self._handle is None:
            self._handle = _named_host(self._host_name)
        try:
            reply, deltas = await self._handle.acall.remote(self._key, messages, tools, response_model, kwargs)
        except Exception as exc:
            cause = getattr(exc, "cause", None)  # the hosted model's own error, as a local call raises it
            if isinstance(cause, BaseException):
                raise cause from None
            raise
        for delta in deltas if on_chunk is not None else ():
            outcome = on_chunk(delta)
            if asyncio.iscoroutine(outcome):
                await outcome
        return reply

    def supports_function_calling(self) -> bool:
        return bool(self._facts.get("function_calling", True))

    def supports_stop_words(self) -> bool:
        return bool(self._facts.get("stop_words", True))

    def get_context_window_size(self) -> int:
        return int(self._facts.get("window", 4096))

    @property
    def rate_limit_key(self) -> str:
        return str(self._facts.get("rate_limit_key", self.model))

    def __repr__(self) -> str:
        return f"HostedLLM({self._facts.get('repr', self.model)})"


def facts_of(llm: BaseLLM) -> dict[str, Any]:
    """What a HostedLLM answers without a round trip, read from the real object."""
    attrs: dict[str, Any] = {
        k: v for k, v in vars(llm).items()
        if not k.startswith("_") and (v is None or isinstance(v, str | int | float | bool))
    }
    attrs["model"] = llm.model
    attrs["stop"] = list(getattr(llm, "stop", []) or [])
    return {
        "attrs": attrs,
        "function_calling": llm.supports_function_calling(),
        "stop_words": llm.supports_stop_words(),
        "window": llm.get_context_window_size(),
        "rate_limit_key": llm.rate_limit_key,
        "repr": repr(llm),
    }
