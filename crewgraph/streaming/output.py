"""``CrewStreamingOutput``: what ``kickoff`` returns when ``Crew(stream=True)`` (and its base,
``StreamingOutputBase``, which ``FlowStreamingOutput`` shares).

Iterate it (``for`` or ``async for``) to get :class:`StreamChunk`s as the
models produce them, then read ``.result``. The run is started by the first
iteration, not by ``kickoff``: ``kickoff_for_each`` then runs its crews one
after another as you consume their streams, as the non-streaming form does.

Where the run executes follows the call that made the stream: ``kickoff()``
runs it on a fresh event loop in a worker thread (so a plain ``for`` loop can
wait for chunks, even inside Jupyter), ``kickoff_async()`` as a task on the
caller's loop (so ``async for`` never blocks that loop). Chunks pass through
a thread-safe channel either way.

This module only carries chunks: the run itself is the coroutine function it
is given (``crewgraph.runner.stream`` passes the crew's run), so streaming
never imports the crew or the runner.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from crewgraph.errors import RunCancelledError
from crewgraph.streaming._channel import Channel, End
from crewgraph.streaming.chunks import StreamChunk, StreamChunkType

if TYPE_CHECKING:
    from crewgraph.outputs import CrewOutput

__all__ = ["CrewStreamingOutput", "FlowStreamingOutput", "StreamingOutputBase", "T"]

T = TypeVar("T")

Runner = Callable[[Callable[[StreamChunk], None]], Coroutine[Any, Any, list[Any]]]
"""Runs the crew(s) or the flow, handing every chunk to its argument; returns one output per run."""

_NOT_DONE = (
    "the stream has not finished: iterate over all of its chunks (`for chunk in streaming` or "
    "`async for chunk in streaming`) before reading .result"
)


class StreamingOutputBase(Generic[T]):
    """The chunks of a streaming run as they arrive, then its result.

    - ``for chunk in streaming`` / ``async for chunk in streaming``: each
      :class:`StreamChunk` once, in arrival order. Breaking out and iterating
      again continues where you left off. An error of the run is raised from
      the iteration (and again from ``result``).
    - ``result``: the run's ``CrewOutput`` once the stream is consumed (before
      that, a ``RuntimeError`` says so). ``results``: every run's output, for
      the merged stream of ``kickoff_for_each_async``.
    - ``chunks``, ``get_full_text()``, ``is_completed``, ``is_cancelled``.
    - ``close()`` / ``aclose()`` (or ``with`` / ``async with``) cancel a run
      you no longer want to read.
    """

    def __init__(self, runner: Runner, *, runs: int = 1, on_loop: bool = False) -> None:
        self._runner = runner
        self._runs = runs
        self._on_loop = on_loop
        self._context = contextvars.copy_context()  # the caller's (a flow's run id follows the run)
        self._channel = Channel()
        self._lock = threading.Lock()
        self._chunks: list[StreamChunk] = []
        self._results: list[T] | None = None
        self._error: BaseException | None = None
        self._completed = False
        self._cancelled = False
        self._started = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ iteration
    def __iter__(self) -> Iterator[StreamChunk]:
        if self._on_loop:
            raise TypeError(
                "this stream runs on the event loop of kickoff_async(): iterate it with `async for`"
            )
        self._start()
        return self._iterate()

    def _iterate(self) -> Iterator[StreamChunk]:
        while not self._completed:
            item = self._channel.get()
            chunk = self._take(item)
            if chunk is not None:
                yield chunk

    def __aiter__(self) -> AsyncIterator[StreamChunk]:
        self._start()
        return self._aiterate()

    async def _aiterate(self) -> AsyncIterator[StreamChunk]:
        while not self._completed:
            item = await self._channel.aget()
            chunk = self._take(item)
            if chunk is not None:
                yield chunk

    def _take(self, item: Any) -> StreamChunk | None:
        """Record a chunk, or finish on the run's end (raising its error)."""
        if not isinstance(item, End):
            self._chunks.append(item)
            return item
        self._completed = True
        if item.error is not None:
            self._error = item.error
            raise item.error
        self._results = list(item.result)
        return None

    # ------------------------------------------------------------------ results
    @property
    def result(self) -> T:
        """The run's output; raises until the stream is consumed, and the run's error if it failed."""
        results = self._all_results()
        if len(results) != 1:
            raise RuntimeError(
                f"this stream merges {len(results)} runs (kickoff_for_each_async): read .results"
            )
        return results[0]

    def _all_results(self) -> list[T]:
        """One output per run, in input order (a single kickoff has one)."""
        if self._error is not None:
            raise self._error
        if self._cancelled and self._results is None:
            raise RunCancelledError("the stream was closed before its run finished: it has no result")
        if not self._completed or self._results is None:
            raise RuntimeError(_NOT_DONE)
        return list(self._results)

    @property
    def is_completed(self) -> bool:
        """True once the run ended (finished, failed or cancelled) and every chunk was read."""
        return self._completed

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    @property
    def chunks(self) -> list[StreamChunk]:
        """The chunks read so far."""
        return list(self._chunks)

    def get_full_text(self) -> str:
        """The text of every ``TEXT`` chunk read so far, joined."""
        return "".join(c.content for c in self._chunks if c.chunk_type is StreamChunkType.TEXT)

    # ------------------------------------------------------------------ the run
    def _start(self) -> None:
        with self._lock:
            if self._started or self._completed:
                return
            self._started = True
        if self._on_loop:
            loop = asyncio.get_running_loop()
            self._loop = loop
            self._task = loop.create_task(self._produce(), context=self._context)
        else:
            thread = threading.Thread(
                target=self._context.run, args=(asyncio.run, self._produce_in_thread()),
                name="crewgraph-stream", daemon=True,
            )
            thread.start()

    async def _produce_in_thread(self) -> None:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
            cancel = self._cancelled
        if cancel:
            return self._channel.put(End(error=_cancelled()))
        await self._produce()

    async def _produce(self) -> None:
        try:
            results = await self._runner(self._channel.put)
        except asyncio.CancelledError:
            self._channel.put(End(error=_cancelled()))
        except BaseException as exc:
            self._channel.put(End(error=exc))
            if not isinstance(exc, Exception):
                raise
        else:
            self._channel.put(End(result=results))

    def close(self) -> None:
        """Cancel the run if it is still going (it stops at its next await); no-op once finished."""
        with self._lock:
            if self._completed or self._cancelled:
                return
            self._cancelled = True
            loop, task, started = self._loop, self._task, self._started
        if not started:
            self._completed = True
            return
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the run's loop already closed: the run is over
                pass

    async def aclose(self) -> None:
        """:meth:`close`, then (for a run on this loop) wait until it has stopped."""
        task = self._task
        self.close()
        if self._on_loop and task is not None and task.get_loop() is asyncio.get_running_loop():
            await asyncio.gather(task, return_exceptions=True)

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = "cancelled" if self._cancelled else "completed" if self._completed else (
            "running" if self._started else "not started"
        )
        return f"{type(self).__name__}({state}, runs={self._runs}, chunks={len(self._chunks)})"


class CrewStreamingOutput(StreamingOutputBase["CrewOutput"]):
    """A streaming crew run (``Crew(stream=True).kickoff()``); ``results`` for merged runs."""

    @property
    def results(self) -> list[CrewOutput]:
        """One output per run, in input order (a single kickoff has one)."""
        return self._all_results()


class FlowStreamingOutput(StreamingOutputBase[Any]):
    """A streaming flow run: the model chunks of its crews and agents, then the flow's result."""

    @classmethod
    def from_run(cls, run: Callable[[], Coroutine[Any, Any, Any]], *, on_loop: bool = False) -> FlowStreamingOutput:
        """The stream of ``run`` (a flow's kickoff): every model delta published on the event bus
        while it goes becomes a :class:`StreamChunk`; its return value is the result."""

        async def runner(put: Callable[[StreamChunk], None]) -> list[Any]:
            from crewgraph.events.bus import crewgraph_event_bus
            from crewgraph.events.llm_events import LLMStreamChunkEvent

            def on_delta(_source: Any, event: LLMStreamChunkEvent) -> None:
                put(_chunk_of(event))

            crewgraph_event_bus.register_handler(LLMStreamChunkEvent, on_delta, inline=True)
            try:
                return [await run()]
            finally:
                crewgraph_event_bus.off(LLMStreamChunkEvent, on_delta)

        return cls(runner, on_loop=on_loop)


def _chunk_of(event: Any) -> StreamChunk:
    from crewgraph.streaming.chunks import ToolCallChunk

    call = event.tool_call
    tool = None if call is None else ToolCallChunk(tool_id=getattr(call, "id", None), tool_name=getattr(call, "name", None),
                                                   arguments=getattr(call, "arguments", "") or "",
                                                   index=getattr(call, "index", 0) or 0)
    return StreamChunk(content=event.chunk, chunk_type=StreamChunkType(event.chunk_type), task_name=event.task_name or "",
                       agent_role=event.agent_role or "", task_id=event.task_id or "", agent_id=event.agent_id or "",
                       tool_call=tool)


def _cancelled() -> RunCancelledError:
    return RunCancelledError("the streaming run was cancelled (close() or aclose())")
