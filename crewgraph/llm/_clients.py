"""One HTTP client per event loop, closed when that loop shuts down.

httpx connection pools belong to the event loop that opened them, and
``BaseLLM.call()`` runs every blocking call on a fresh loop, while a crew run
makes many calls on one loop. So clients are cached per loop (weakly: a dead
loop drops its entry) and each is closed by an async-generator sentinel that
asyncio finalises in ``shutdown_asyncgens()`` (``asyncio.run`` and
``asyncio.Runner`` call it) while the loop can still close sockets cleanly.
"""

from __future__ import annotations

import importlib
import sys
import threading
import weakref
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["LoopClients", "preload"]


class LoopClients:
    """Per-event-loop cache of clients built by ``factory`` (which may raise)."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._lock = threading.Lock()
        self._entries: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[Any, AsyncGenerator[None, None]]
        ] = weakref.WeakKeyDictionary()

    async def get(self) -> Any:
        """The running loop's client, created on first use."""
        import asyncio

        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.get(loop)
        if entry is not None:
            return entry[0]
        client = self._factory()
        closer = _close_with_loop(client)
        await closer.__anext__()
        with self._lock:
            entry = self._entries.get(loop)
            if entry is None:
                self._entries[loop] = (client, closer)
        if entry is not None:  # another task won the race; keep its client
            await closer.aclose()
            return entry[0]
        return client

    async def aclose(self) -> None:
        """Close the running loop's client now."""
        import asyncio

        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.pop(loop, None)
        if entry is not None:
            await entry[1].aclose()


async def preload(module: str) -> None:
    """Import a heavy dependency in a worker thread the first time, not on the event loop.

    openai and instructor take a second or two to import; doing it inline
    would stall every other task of the run during the first model call.
    """
    if module not in sys.modules:
        import asyncio

        await asyncio.to_thread(importlib.import_module, module)


async def _close_with_loop(client: Any) -> AsyncGenerator[None, None]:
    """Suspended async generator whose cleanup closes ``client`` during loop shutdown."""
    try:
        yield
    finally:
        await client.close()
