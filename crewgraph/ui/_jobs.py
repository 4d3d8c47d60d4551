"""Runs this server starts (kickoff, resume, answer, fork) and the live feed of their events.

Each action runs in a worker thread (at most ``max_jobs`` at once; the rest
queue), because ``kickoff`` is synchronous and a run may take minutes. The run
id is learnt from the run's own first event (``CrewKickoffStartedEvent`` /
``FlowStartedEvent``): a context variable marks the job's thread, and an
*inline* bus handler (it runs where the event is emitted, so it sees that
variable) binds the id to the job. From then on every event stamped with that
run id is recorded in its :class:`RunTrace` and pushed to the page's
server-sent-event streams.

Runs started by other processes are not on this process's bus; their pages
are refreshed by polling the store (see ``app.py``).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
from crewgraph.ui._trace import RunTrace
from crewgraph.ui.errors import ApiError, public_message

_log = logging.getLogger("crewgraph.ui")

__all__ = ["Job", "LiveRuns"]

_STARTED = frozenset({"crew_kickoff_started", "flow_started"})
_CURRENT_JOB: contextvars.ContextVar[Job | None] = contextvars.ContextVar("crewgraph_ui_job", default=None)
_QUEUE_SIZE = 1000


@dataclass
class Job:
    """One action the server runs: what, on which run, and how it ended."""

    id: str
    action: str
    target: str | None
    run_id: str | None = None
    status: str = "queued"
    error: str | None = None
    result: Any = None
    run_graph: Any = None
    created: float = field(default_factory=time.time)
    finished: float | None = None
    graph_of: Callable[[], Any] | None = field(default=None, repr=False)
    """Where the executed graph is when the result does not carry it (a flow's ``run_graph``)."""
    ready: threading.Event = field(default_factory=threading.Event, repr=False)
    done: threading.Event = field(default_factory=threading.Event, repr=False)

    def to_json(self) -> dict[str, Any]:
        from crewgraph.ui._trace import clip

        return {
            "job_id": self.id,
            "action": self.action,
            "target": self.target,
            "run_id": self.run_id,
            "status": self.status,
            "error": self.error,
            "result": clip(self.result, 2000),
            "created": self.created,
            "finished": self.finished,
        }


def _describe(exc: BaseException) -> str:
    from crewgraph.cli._errors import describe

    return describe(exc)


def _outcome(job: Job, result: Any) -> None:
    from crewgraph.flow.human_feedback import PendingRun

    if isinstance(result, PendingRun) or getattr(result, "pending", False) is True:
        job.status = "paused"  # a flow's PendingRun, or a crew's PendingCrewRun
        job.run_id = job.run_id or result.run_id
        job.run_graph = getattr(result, "graph", None)
        job.result = str(result)
        return
    job.status = "completed"
    job.run_graph = getattr(result, "graph", None)
    job.run_id = job.run_id or getattr(result, "run_id", None)
    raw = getattr(result, "raw", None)
    job.result = raw if isinstance(raw, str) else result


class LiveRuns:
    """The jobs, the traces of their runs and the subscribers of each run's event stream."""

    def __init__(self, max_jobs: int = 4, bus: CrewGraphEventsBus | None = None, max_waiting: int = 32) -> None:
        self.bus = bus or crewgraph_event_bus
        self.max_jobs = max(1, max_jobs)
        self.max_waiting = max(0, max_waiting)
        self.jobs: dict[str, Job] = {}
        self.by_run: dict[str, Job] = {}
        self.traces: dict[str, RunTrace] = {}
        self._subscribers: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pool = ThreadPoolExecutor(max_workers=max(1, max_jobs), thread_name_prefix="crewgraph-ui-job")
        self._listening = False

    # lifecycle -------------------------------------------------------------
    def start(self) -> None:
        if not self._listening:
            self.bus.register_handler(BaseEvent, self._on_event, inline=True)
            self._listening = True

    def stop(self) -> None:
        """Stop listening; running jobs go on in their threads (their runs are checkpointed)."""
        if self._listening:
            self.bus.off(BaseEvent, self._on_event)
            self._listening = False
        self._pool.shutdown(wait=False, cancel_futures=True)

    # jobs --------------------------------------------------------------------
    def submit(self, action: str, target: str | None, fn: Callable[[], Any], run_id: str | None = None,
               wait: float = 10.0, graph_of: Callable[[], Any] | None = None) -> Job:
        """Run ``fn`` in a worker thread; return once its run id is known (or it ended), at most
        ``wait`` seconds later (a queued job is returned with ``status="queued"``).

        When every worker is busy the job is queued and returned at once (no request thread
        waits on it, so the API stays responsive); when ``max_waiting`` jobs already queue,
        :class:`ApiError` 429 (with ``Retry-After``) refuses it."""
        with self._lock:
            unfinished = sum(1 for j in self.jobs.values() if not j.done.is_set())
            if unfinished >= self.max_jobs + self.max_waiting:
                raise ApiError(429, f"{unfinished} jobs are running or queued (at most {self.max_jobs} run at once "
                               f"and {self.max_waiting} wait); retry later", "queue",
                               headers={"Retry-After": "5"})
            busy = unfinished >= self.max_jobs
            job = Job(id=f"job{next(self._ids)}", action=action, target=target, run_id=run_id, graph_of=graph_of)
            self.jobs[job.id] = job
            if run_id is not None:
                self._bind(job, run_id)
        context = contextvars.copy_context()
        self._pool.submit(context.run, self._work, job, fn)
        if not busy:
            job.ready.wait(wait)
        return job

    def _work(self, job: Job, fn: Callable[[], Any]) -> None:
        _CURRENT_JOB.set(job)
        job.status = "running"
        try:
            _outcome(job, fn())
        except BaseException as exc:
            job.status = "failed"
            full = _describe(exc)
            _log.warning("job %s (%s %s) failed: %s", job.id, job.action, job.target, full)
            job.error = public_message(full)  # what pages see: no absolute paths of this machine
            job.run_id = job.run_id or getattr(exc, "run_id", None)
            job.run_graph = getattr(exc, "run_graph", None)
        finally:
            if job.run_graph is None and job.graph_of is not None:
                try:
                    job.run_graph = job.graph_of()
                except Exception:  # no graph is no reason to lose the job's outcome
                    job.run_graph = None
            job.finished = time.time()
            if job.run_id is not None:
                with self._lock:
                    self._bind(job, job.run_id)
                    trace = self.traces.get(job.run_id)
                if trace is not None:
                    trace.status = job.status
                self._publish(job.run_id, {"type": "job_finished", "run_id": job.run_id, "status": job.status,
                                           "error": job.error, "job_id": job.id})
            job.ready.set()
            job.done.set()

    def _bind(self, job: Job, run_id: str) -> None:
        job.run_id = run_id
        self.by_run[run_id] = job
        trace = self.traces.get(run_id)
        if trace is None:
            self.traces[run_id] = RunTrace(run_id)
        else:
            trace.status = "running" if not job.done.is_set() else trace.status

    def unstored(self, known: set[str]) -> list[Job]:
        """Jobs whose runs no store holds (a flow without persistence), newest first."""
        with self._lock:
            jobs = [j for rid, j in self.by_run.items() if rid not in known]
        return sorted(jobs, key=lambda j: j.created, reverse=True)

    def signature(self) -> tuple[tuple[str, str, str | None, float | None], ...]:
        """What the run list shows of the jobs: changes when one starts, binds a run or ends."""
        with self._lock:
            return tuple((j.id, j.status, j.run_id, j.finished) for j in self.by_run.values())

    def job_for(self, run_id: str) -> Job | None:
        return self.by_run.get(run_id)

    def trace(self, run_id: str) -> RunTrace | None:
        return self.traces.get(run_id)

    def running(self, run_id: str) -> bool:
        job = self.by_run.get(run_id)
        return job is not None and not job.done.is_set()

    # events ------------------------------------------------------------------
    def _on_event(self, source: Any, event: BaseEvent) -> None:
        run_id = event.run_id
        if run_id is None:
            return
        trace = self.traces.get(run_id)
        if trace is None and event.event_type in _STARTED:
            job = _CURRENT_JOB.get()
            if job is not None and (job.run_id is None or job.run_id == run_id):
                with self._lock:
                    self._bind(job, run_id)
                    trace = self.traces[run_id]
                job.ready.set()
        if trace is None:
            return
        self._publish(run_id, trace.record(event))

    def subscribe(self, run_id: str) -> asyncio.Queue[Any]:
        """A queue of this run's event summaries for the calling event loop (bounded: a
        subscriber that stops reading loses events, never the run)."""
        queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=_QUEUE_SIZE)
        with self._lock:
            self._subscribers.setdefault(run_id, []).append((asyncio.get_running_loop(), queue))
        return queue

    def unsubscribe(self, run_id: str, queue: asyncio.Queue[Any]) -> None:
        with self._lock:
            subs = self._subscribers.get(run_id, [])
            self._subscribers[run_id] = [s for s in subs if s[1] is not queue]

    def _publish(self, run_id: str, item: dict[str, Any]) -> None:
        with self._lock:
            subs = list(self._subscribers.get(run_id, ()))
        for loop, queue in subs:
            try:
                loop.call_soon_threadsafe(_put, queue, item)
            except RuntimeError:  # that loop is closed: its client is gone
                self.unsubscribe(run_id, queue)


def _put(queue: asyncio.Queue[Any], item: Any) -> None:
    try:
        queue.put_nowait(item)
    except asyncio.QueueFull:
        pass
