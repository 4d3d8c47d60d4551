"""Stream sessions: a run's events as ordered, channel-tagged :class:`StreamFrame`s (CrewAI's
``StreamSession`` / ``AsyncStreamSession`` in ``crewai.types.streaming``).

A session is given the run to perform (a coroutine function); iterating it starts the run and
yields, in emission order, a frame for every event the run publishes on crewgraph's bus, on its
channel: ``llm`` (model deltas), ``tools`` (tool calls), ``flow`` (flow and method events),
``messages`` (conversation messages), ``lifecycle`` (crew, task, agent events) and ``custom``
(anything else). ``subscribe(channels)`` / ``interleave(channels)`` and the ``llm``/``tools``/
``flow``/``messages`` properties iterate some channels only, ``events`` all of them; once the
stream is exhausted they replay the frames kept in ``frames``. ``result`` is the run's return
value after the stream is consumed. ``close()``/``aclose()`` cancel a run no longer wanted.

The frames are the events emitted while the run is going; a session is for one run at a time
in the process (concurrent runs' events would interleave in it).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from crewgraph.errors import RunCancelledError
from crewgraph.streaming._channel import Channel, End
from crewgraph.streaming.frames import StreamChannel, StreamFrame

__all__ = ["AsyncStreamSession", "StreamSession", "StreamSessionBase", "event_frame"]

T = TypeVar("T")
Run = Callable[[], Awaitable[Any]]

_CHANNELS = {"flow_events": "flow", "tool_events": "tools", "conversation_events": "messages",
             "crew_events": "lifecycle", "agent_events": "lifecycle", "llm_events": "lifecycle"}


def event_frame(event: Any, seq: int, previous_id: str | None) -> StreamFrame:
    """The frame of one bus event (its channel from what kind of event it is)."""
    module = type(event).__module__.rsplit(".", 1)[-1]
    channel: StreamChannel = "llm" if event.event_type == "llm_stream_chunk" else _CHANNELS.get(module, "custom")  # type: ignore[assignment]
    data = event.model_dump(mode="json", exclude_none=True)
    if channel == "llm":
        data.setdefault("content", getattr(event, "chunk", ""))
    data["event"] = dict(data)
    return StreamFrame(id=event.event_id, channel=channel, type=event.event_type, timestamp=event.timestamp,
                       data=data, namespace=[n for n in (getattr(event, "run_id", None),) if n], seq=seq,
                       parent_id=getattr(event, "parent_event_id", None), previous_id=previous_id)


class StreamSessionBase(Generic[T]):
    """Frames in order, then the result (see the module docstring)."""

    def __init__(self, run: Run, *, on_loop: bool = False) -> None:
        self._run = run
        self._on_loop = on_loop
        self._context = contextvars.copy_context()
        self._channel = Channel()
        self._lock = threading.Lock()
        self._frames: list[StreamFrame] = []
        self._result: Any = None
        self._error: BaseException | None = None
        self._completed = self._cancelled = self._exhausted = self._started = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def result(self) -> T:
        """The run's return value once every frame was read (its error if it failed)."""
        if self._error is not None:
            raise self._error
        if self._cancelled and not self._exhausted:
            raise RunCancelledError("the stream session was closed before its run finished: it has no result")
        if not self._exhausted:
            raise RuntimeError("Streaming has not completed yet. Iterate over all frames before accessing result.")
        result: T = self._result
        return result

    @property
    def is_completed(self) -> bool:
        return self._completed

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    @property
    def is_exhausted(self) -> bool:
        """Whether every frame of the run was read."""
        return self._exhausted

    @property
    def frames(self) -> list[StreamFrame]:
        """The frames read so far."""
        return list(self._frames)

    # the run ---------------------------------------------------------------------------
    async def _produce(self) -> None:
        from crewgraph.events.base import BaseEvent
        from crewgraph.events.bus import crewgraph_event_bus

        counter = itertools.count(1)
        last: list[str | None] = [None]

        def on_event(_source: Any, event: Any) -> None:
            frame = event_frame(event, next(counter), last[0])
            last[0] = frame.id
            self._channel.put(frame)

        crewgraph_event_bus.register_handler(BaseEvent, on_event, inline=True)
        try:
            result = await self._run()
            await crewgraph_event_bus.adrain()
        except asyncio.CancelledError:
            self._channel.put(End(error=RunCancelledError("the streaming run was cancelled (close() or aclose())")))
        except BaseException as exc:
            self._channel.put(End(error=exc))
            if not isinstance(exc, Exception):
                raise
        else:
            self._channel.put(End(result=result))
        finally:
            crewgraph_event_bus.off(BaseEvent, on_event)

    def _start(self) -> None:
        with self._lock:
            if self._started or self._completed:
                return
            self._started = True
        if self._on_loop:
            self._loop = asyncio.get_running_loop()
            self._task = self._loop.create_task(self._produce(), context=self._context)
        else:
            threading.Thread(target=self._context.run, args=(asyncio.run, self._in_thread()),
                             name="crewgraph-stream-session", daemon=True).start()

    async def _in_thread(self) -> None:
        with self._lock:
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        await self._produce()

    def _take(self, item: Any, selected: set[str] | None) -> StreamFrame | None:
        if not isinstance(item, End):
            self._frames.append(item)
            return item if selected is None or item.channel in selected else None
        self._completed = True
        if item.error is not None:
            self._error = item.error
            raise item.error
        self._result, self._exhausted = item.result, True
        return None

    def _cancel(self) -> None:
        with self._lock:
            if self._completed or self._cancelled:
                return
            self._cancelled = self._completed = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the run's loop is closed: the run is over
                pass


def _selected(channels: Sequence[StreamChannel] | None) -> set[str] | None:
    return set(channels) if channels is not None else None


class StreamSession(StreamSessionBase[T]):
    """A session iterated with ``for`` (the run goes on a worker thread's loop)."""

    def subscribe(self, channels: Sequence[StreamChannel] | None = None) -> Iterator[StreamFrame]:
        """The frames of ``channels`` (all when None), in order."""
        selected = _selected(channels)
        if self._exhausted or self._cancelled:
            yield from (f for f in self._frames if selected is None or f.channel in selected)
            return
        if self._on_loop:
            raise TypeError("this session runs on an event loop: use AsyncStreamSession and `async for`")
        self._start()
        while not self._completed:
            frame = self._take(self._channel.get(), selected)
            if frame is not None:
                yield frame

    def interleave(self, channels: Sequence[StreamChannel]) -> Iterator[StreamFrame]:
        """The frames of several channels, in their global order."""
        return self.subscribe(channels)

    def __iter__(self) -> Iterator[StreamFrame]:
        return self.subscribe()

    @property
    def events(self) -> Iterator[StreamFrame]:
        return self.subscribe()

    @property
    def llm(self) -> Iterator[StreamFrame]:
        return self.subscribe(["llm"])

    @property
    def messages(self) -> Iterator[StreamFrame]:
        return self.subscribe(["messages"])

    @property
    def flow(self) -> Iterator[StreamFrame]:
        return self.subscribe(["flow"])

    @property
    def tools(self) -> Iterator[StreamFrame]:
        return self.subscribe(["tools"])

    def close(self) -> None:
        """Cancel the run if it is still going."""
        self._cancel()

    def __enter__(self) -> StreamSession[T]:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if not self._exhausted:
            self.close()


class AsyncStreamSession(StreamSessionBase[T]):
    """A session iterated with ``async for`` (the run is a task on the caller's loop)."""

    def __init__(self, run: Run) -> None:
        super().__init__(run, on_loop=True)

    async def subscribe(self, channels: Sequence[StreamChannel] | None = None) -> AsyncIterator[StreamFrame]:
        """The frames of ``channels`` (all when None), in order."""
        selected = _selected(channels)
        if self._exhausted or self._cancelled:
            for f in list(self._frames):
                if selected is None or f.channel in selected:
                    yield f
            return
        self._start()
        while not self._completed:
            frame = self._take(await self._channel.aget(), selected)
            if frame is not None:
                yield frame

    def interleave(self, channels: Sequence[StreamChannel]) -> AsyncIterator[StreamFrame]:
        """The frames of several channels, in their global order."""
        return self.subscribe(channels)

    def __aiter__(self) -> AsyncIterator[StreamFrame]:
        return self.subscribe()

    @property
    def events(self) -> AsyncIterator[StreamFrame]:
        return self.subscribe()

    @property
    def llm(self) -> AsyncIterator[StreamFrame]:
        return self.subscribe(["llm"])

    @property
    def messages(self) -> AsyncIterator[StreamFrame]:
        return self.subscribe(["messages"])

    @property
    def flow(self) -> AsyncIterator[StreamFrame]:
        return self.subscribe(["flow"])

    @property
    def tools(self) -> AsyncIterator[StreamFrame]:
        return self.subscribe(["tools"])

    async def aclose(self) -> None:
        """Cancel the run if it is still going, and wait until it stopped."""
        task = self._task
        self._cancel()
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            await asyncio.gather(task, return_exceptions=True)

    async def __aenter__(self) -> AsyncStreamSession[T]:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if not self._exhausted:
            await self.aclose()
