"""How a step's payload is pickled for a worker, and what is swapped on the way.

cloudpickle sends nodes, tools and callables by value. On top of it:

- locks (``threading.Lock``/``RLock``) travel as fresh locks: they guard state
  inside one process, and the copy on the worker needs its own;
- a model client that can be rebuilt from configuration (``crewgraph.LLM``: its
  ``__getstate__`` drops the sockets) travels as configuration;
- any other model object (a ``FakeLLM`` with its script, a custom ``BaseLLM``) keeps
  its state in one place: it is *hosted* in a Ray actor for the run and workers get
  a proxy that calls it there (see :mod:`crewgraph.distributed._hosted`);
- a rate limiter (``RPMLimiter``) becomes a proxy of one Ray actor per limiter, so
  every worker draws on the same window (:mod:`crewgraph.distributed._limits`);
- memory must live on a Qdrant server to be shared: embedded memory is refused;
- a sequential task's default context (a ``NodePrefix``) whose entries the run's host
  actor holds travels as (host, pool, length) (:mod:`crewgraph.distributed._context_share`).

``dumps_checked`` turns a pickling failure into an error naming the node and the
object that cannot travel, which is what a user needs to fix it.
"""

from __future__ import annotations

import io
import pickle
import threading
from collections.abc import Callable
from typing import Any

from crewgraph._internal.shared_prompt import (
    CompactMessage,
    ContextRef,
    compact_message,
    compact_parts,
)
from crewgraph.errors import ConfigurationError
from crewgraph.graph.node_prefix import NodePrefix

__all__ = ["EMBEDDED_MEMORY_MESSAGE", "StepPickler", "dumps_checked", "dumps_reply", "loads"]

_LOCK = type(threading.Lock())
_RLOCK = type(threading.RLock())

# What ``StepPickler.swap`` does with an object of a given type (see ``_classify``).
_PLAIN = "plain"
_AS_LOCK = "lock"
_AS_RLOCK = "rlock"
_AS_SHARED_REF = "shared ref"
_AS_PREFIX = "prefix"
_AS_LIMITER = "limiter"
_AS_TOOL = "tool"
_AS_LLM = "configured llm"
_AS_HOSTED_LLM = "hosted llm"
_AS_MEMORY = "memory"

EMBEDDED_MEMORY_MESSAGE = (
    "embedded memory (a local folder) cannot be shared by the machines of a Ray cluster: "
    "put memory on a Qdrant server -- Memory(storage=\"http://qdrant-host:6333\") or "
    "CREWGRAPH_QDRANT_URL=http://qdrant-host:6333 -- and every worker reads and writes "
    "the same collection"
)


def _new_lock() -> Any:
    return threading.Lock()


def _new_rlock() -> Any:
    return threading.RLock()


def _cloudpickle() -> Any:
    from ray import cloudpickle

    return cloudpickle


class StepPickler:
    """Builds cloudpickle picklers with crewgraph's swaps (see the module docstring).

    ``host_llm(obj)`` returns the stand-in for a model that must stay in one place;
    ``share_limiter(obj)`` the stand-in for a rate limiter.
    """

    def __init__(
        self, host_llm: Callable[[Any], Any] | None = None, share_limiter: Callable[[Any], Any] | None = None,
        share_prefix: Callable[[Any], Any] | None = None, entry_lists: dict[int, str] | None = None,
    ) -> None:
        """Without ``host_llm``/``share_limiter`` (a worker's reply) only locks are swapped,
        and context refs over a pool's entry list (``entry_lists``: ``id`` of the list -> pool
        key) go as the pool's key and a count. ``share_prefix(prefix)``: the stand-in for a
        ``NodePrefix`` whose entries the run's host holds (see ``_context_share``), or
        NotImplemented."""
        self._host_llm = host_llm
        self._share_limiter = share_limiter
        self._share_prefix = share_prefix
        self._entry_lists = entry_lists
        self._inner: Any = None
        self._kinds: dict[type, str] = {}
        self._configs: dict[int, tuple[Any, str, bytes]] = {}
        cloudpickle = _cloudpickle()
        outer = self

        class _Pickler(cloudpickle.Pickler):  # type: ignore[name-defined]
            def reducer_override(self, obj: Any) -> Any:
                swapped = outer.swap(obj)
                if swapped is not NotImplemented:
                    return swapped
                return super().reducer_override(obj)

        self._pickler_class = _Pickler

    def swap(self, obj: Any) -> Any:
        """A reduce tuple for objects that travel differently, else NotImplemented.

        Called for every object the pickler meets, so the kind of swap is looked up by type
        (classified once per type and pickler) rather than by a chain of ``isinstance``."""
        kind = type(obj)
        swap = self._kinds.get(kind)
        if swap is None:
            swap = self._kinds[kind] = self._classify(kind)
        if swap is _PLAIN:
            return NotImplemented
        if swap is _AS_LOCK:
            return (_new_lock, ())
        if swap is _AS_RLOCK:
            return (_new_rlock, ())
        if swap is _AS_SHARED_REF:
            return self._shared_ref(obj, kind)
        if swap is _AS_PREFIX:
            return self._share_prefix(obj)  # type: ignore[misc]
        if swap is _AS_LIMITER:
            return self._share_limiter(obj)  # type: ignore[misc]
        if swap is _AS_TOOL:
            return _marked_tool(obj)
        if swap is _AS_LLM:
            if obj is self._inner:
                return NotImplemented
            return self._configured(obj)  # rebuilt from its configuration on the worker
        if swap is _AS_HOSTED_LLM:
            return NotImplemented if obj is self._inner else self._host_llm(obj)  # type: ignore[misc]
        # memory
        if not memory_is_shared(obj):
            raise _Refused(EMBEDDED_MEMORY_MESSAGE)
        # its configuration travels; the worker opens its own client to the same server
        return (_rebuild_model, (type(obj), {name: getattr(obj, name) for name in type(obj).model_fields}))

    def _classify(self, kind: type) -> str:
        """Which swap objects of this type take (one of the ``_AS_*`` / ``_PLAIN`` markers)."""
        if kind is _LOCK:
            return _AS_LOCK
        if kind is _RLOCK:
            return _AS_RLOCK
        if self._host_llm is None or self._share_limiter is None:
            if self._entry_lists is not None and kind in (ContextRef, CompactMessage):
                return _AS_SHARED_REF
            return _PLAIN
        if kind is NodePrefix:
            return _PLAIN if self._share_prefix is None else _AS_PREFIX
        from crewgraph.distributed._hosted import HostedLLM
        from crewgraph.llm.base import BaseLLM
        from crewgraph.llm.openai_llm import LLM
        from crewgraph.llm.rate_limit import RPMLimiter
        from crewgraph.memory.memory import Memory
        from crewgraph.tools.base_tool import BaseTool

        if issubclass(kind, RPMLimiter):
            return _AS_LIMITER
        if issubclass(kind, BaseTool):
            return _AS_TOOL
        if issubclass(kind, BaseLLM):
            if issubclass(kind, HostedLLM):
                return _PLAIN
            return _AS_LLM if issubclass(kind, LLM) else _AS_HOSTED_LLM
        if issubclass(kind, Memory):  # or a scope/slice over one: it has a resolved storage backend
            return _AS_MEMORY
        return _PLAIN

    def _shared_ref(self, obj: Any, kind: type) -> Any:
        """A reply's kept prompt whose context is a ref over a pool's entry list: as the ref
        (a ``CompactMessage`` pickles as its plain text otherwise), the ref as (key, count)."""
        lists = self._entry_lists
        assert lists is not None
        if kind is ContextRef:
            key = lists.get(id(obj.parts))
            if key is not None:
                from crewgraph.distributed._context_share import driver_context

                return (driver_context, (key, obj.count, obj.separator))
        elif kind is CompactMessage:
            parts = compact_parts(obj)
            if parts is not None and id(parts[1].parts) in lists:
                return (compact_message, parts)
        return NotImplemented

    def _configured(self, llm: Any) -> Any:
        """A model client as its configuration, keyed by it: a worker builds one client per
        configuration and reuses it (and its connections) for every step that names it."""
        known = self._configs.get(id(llm))
        if known is None or known[0] is not llm:
            import hashlib

            self._inner = llm
            try:
                config = self.dumps(llm)
            finally:
                self._inner = None
            known = self._configs[id(llm)] = (llm, hashlib.sha256(config).hexdigest(), config)
        return (worker_llm, (known[1], known[2]))

    def dumps(self, obj: Any) -> bytes:
        buffer = io.BytesIO()
        self._pickler_class(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
        return buffer.getvalue()


def _marked_tool(tool: Any) -> Any:
    """A tool as it pickles anyway, plus its instance mark for the copy to keep (its cache
    entries are the driver instance's: ``tools._cache.sent_as``)."""
    from crewgraph.tools._cache import instance_mark

    reduced = tool.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    if not isinstance(reduced, tuple) or len(reduced) < 2 or (len(reduced) > 5 and reduced[5] is not None):
        return NotImplemented  # a tool with its own way of being rebuilt: sent as it is
    state = reduced[2] if len(reduced) > 2 else None
    items = reduced[3] if len(reduced) > 3 else None
    pairs = reduced[4] if len(reduced) > 4 else None
    return (reduced[0], reduced[1], (state, instance_mark(tool)), items, pairs, _set_marked_state)


def _set_marked_state(obj: Any, state: tuple[Any, str]) -> Any:
    inner, mark = state
    if inner is not None:
        setstate = getattr(obj, "__setstate__", None)
        if setstate is not None:
            setstate(inner)
        else:
            obj.__dict__.update(inner)
    from crewgraph.tools._cache import sent_as

    sent_as(obj, mark)
    return obj


class _Refused(Exception):
    """Raised from inside the pickler: this object must not travel (the message says why)."""


def dumps_checked(pickler: StepPickler, obj: Any, what: str) -> bytes:
    """Pickle ``obj`` for a worker, or a ConfigurationError naming ``what`` and the culprit."""
    try:
        return pickler.dumps(obj)
    except _Refused as exc:
        raise ConfigurationError(f"{what} cannot run on Ray: {exc}") from None
    except ConfigurationError:
        raise
    except Exception as exc:
        culprit = find_unpicklable(pickler, obj)
        raise ConfigurationError(
            f"{what} cannot be sent to a Ray worker: {culprit or type(obj).__name__} cannot be pickled "
            f"({type(exc).__name__}: {exc}). Give it configuration that can be rebuilt on the worker "
            "(a model name, a URL, a path) instead of a live object."
        ) from exc


def find_unpicklable(pickler: StepPickler, obj: Any, path: str = "", depth: int = 0) -> str | None:
    """A readable path (``tools[0].client``) to the innermost part of ``obj`` that fails to pickle."""
    if depth > 6:
        return path or None
    children: list[tuple[str, Any]] = []
    if isinstance(obj, dict):
        children = [(f"{path}[{k!r}]", v) for k, v in obj.items()]
    elif isinstance(obj, list | tuple | set | frozenset):
        children = [(f"{path}[{i}]", v) for i, v in enumerate(obj)]
    else:
        fields = getattr(obj, "__dict__", None)
        if isinstance(fields, dict):
            children = [(f"{path}.{k}" if path else k, v) for k, v in fields.items()]
        for name in getattr(type(obj), "__slots__", ()) or ():
            if hasattr(obj, name):
                children.append((f"{path}.{name}" if path else name, getattr(obj, name)))
        extra = getattr(obj, "__pydantic_private__", None)
        if isinstance(extra, dict):
            children.extend((f"{path}.{k}" if path else k, v) for k, v in extra.items())
    for child_path, child in children:
        try:
            pickler.dumps(child)
        except Exception:
            deeper = find_unpicklable(pickler, child, child_path, depth + 1)
            return deeper or f"{child_path} ({type(child).__name__})"
    return f"{path} ({type(obj).__name__})" if path else None


def dumps_reply(reply: Any) -> bytes:
    """Pickle a worker's reply; an exception that cannot travel goes as its type and message."""
    from crewgraph.distributed._context_share import worker_entry_lists

    pickler = StepPickler(entry_lists=worker_entry_lists() or None)
    try:
        return pickler.dumps(reply)
    except Exception:
        error = getattr(reply, "error", None)
        if error is None:
            raise
        reply.error = RuntimeError(f"{type(error).__name__}: {error}")
        return pickler.dumps(reply)


_WORKER_LLMS: dict[str, Any] = {}


def worker_llm(key: str, config: bytes) -> Any:
    """On a worker: the client built from ``config`` (the first time), then the same one."""
    llm = _WORKER_LLMS.get(key)
    if llm is None:
        llm = _WORKER_LLMS[key] = loads(config)
    return llm


def _rebuild_model(kind: Any, fields: dict[str, Any]) -> Any:
    return kind(**fields)


def loads(data: bytes) -> Any:
    return _cloudpickle().loads(data)




def memory_is_shared(memory: Any) -> bool:
    """True when ``memory``'s storage is a Qdrant server every machine can reach."""
    try:
        backend = memory.storage_backend
    except Exception:
        return False
    from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

    return isinstance(backend, QdrantServerStorage) and bool(getattr(backend, "url", None))
