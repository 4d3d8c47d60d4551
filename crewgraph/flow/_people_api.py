"""The people part of ``Flow``: ``ask``, ``@human_feedback`` results, ``from_pending`` and ``resume``.

Mixed into :class:`~crewgraph.flow.Flow`; the work is done in
:mod:`crewgraph.flow._ask` (asking through an InputProvider) and
:mod:`crewgraph.flow._feedback` (pausing for feedback and continuing later).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from crewgraph._internal.sync import run_sync
from crewgraph.flow._sentinels import hybrid

if TYPE_CHECKING:
    from crewgraph.flow.async_feedback.types import PendingFeedbackContext
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.human_feedback import HumanFeedbackResult
    from crewgraph.flow.persistence import FlowPersistence

__all__ = ["PeopleMixin", "resume_either"]


class PeopleMixin:
    """Asking people and taking their feedback, from inside a flow's methods."""

    human_feedback_history: list[HumanFeedbackResult]
    _input_history: list[dict[str, Any]]
    _input_lock: threading.Lock
    _pending_context: PendingFeedbackContext | None

    @property
    def last_human_feedback(self) -> HumanFeedbackResult | None:
        """The latest ``@human_feedback`` result, or None."""
        return self.human_feedback_history[-1] if self.human_feedback_history else None

    def _record_feedback(self, result: HumanFeedbackResult) -> None:
        self.human_feedback_history.append(result)

    @property
    def pending_feedback(self) -> PendingFeedbackContext | None:
        """What this flow waits for, when it was loaded with :meth:`from_pending`."""
        return self._pending_context

    @property
    def input_history(self) -> list[dict[str, Any]]:
        """Every ``ask`` of this instance: ``message``, ``response`` (None: no answer),
        ``method_name``, ``timestamp``, ``metadata``, ``response_metadata``."""
        with self._input_lock:
            return [dict(entry) for entry in self._input_history]

    def _record_input(
        self, message: str, response: str | None, method: str | None,
        metadata: dict[str, Any] | None, response_metadata: dict[str, Any] | None,
    ) -> None:
        from crewgraph.flow._ask import history_entry

        with self._input_lock:
            self._input_history.append(history_entry(message, response, method, metadata, response_metadata))

    def ask(self, message: str, timeout: float | None = None, metadata: dict[str, Any] | None = None) -> str | None:
        """Ask a person ``message`` from inside a method; the answer, or None (no answer
        within ``timeout`` seconds, or the provider failed). ``metadata`` goes to the
        provider and the events.

        The flow's ``input_provider`` answers, else ``flow_config.input_provider``, else the
        console. With ``input_provider = "persisted"`` (a persisted flow) the run *pauses*:
        ``kickoff`` returns a :class:`~crewgraph.flow.human_feedback.PendingRun`, and
        ``Flow.resume(run_id, answer)`` continues it later -- this method then runs again
        from its start and this call returns the answer."""
        from crewgraph.flow._ask import ask

        return ask(self, message, timeout, metadata)  # type: ignore[arg-type]

    @classmethod
    def from_pending(
        cls, flow_id: str, persistence: FlowPersistence | None = None, *, definition: Any = None, **kwargs: Any
    ) -> Flow[Any]:
        """A flow paused for ``@human_feedback`` (``kickoff`` returned ``HumanFeedbackPending``),
        loaded from ``persistence`` (default: the class's store, else the default SQLite file)
        in this or any later process; continue it with :meth:`resume` / :meth:`resume_async`.
        ``kwargs`` go to the constructor."""
        if definition is not None:
            raise ValueError("Flow.from_pending(definition=...) is not supported; call it on the flow class")
        from crewgraph.flow._feedback import from_pending

        return from_pending(cls, flow_id, persistence, kwargs)  # type: ignore[arg-type]

    @hybrid
    def resume(
        cls: type[Flow[Any]],
        self: Flow[Any] | None,
        feedback: Any = "",
        answer: Any = None,
        *,
        run_id: str = "",
        persistence: FlowPersistence | None = None,
        max_method_calls: int | None = None,
    ) -> Any:
        """Continue a paused run.

        CrewAI's form, on a flow loaded with :meth:`from_pending`: ``flow.resume(feedback)``
        gives the feedback it waits for. crewgraph's form: ``Flow.resume(run_id, answer)``
        continues run ``run_id`` -- paused for input (give its ``answer``; a dict
        ``{method: answer}`` when several questions wait) or killed -- in this or any later
        process, without running a completed method again; on the class (``MyFlow.resume``,
        even ``Flow.resume``: the run names its class) or an instance. Returns the flow's
        result, or a new pending result if it pauses again."""
        return run_sync(resume_either(cls, self, feedback, answer, run_id, persistence, max_method_calls))

    @hybrid
    async def resume_async(
        cls: type[Flow[Any]],
        self: Flow[Any] | None,
        feedback: Any = "",
        answer: Any = None,
        *,
        run_id: str = "",
        persistence: FlowPersistence | None = None,
        max_method_calls: int | None = None,
    ) -> Any:
        """:meth:`resume` on the current event loop (what async web handlers call)."""
        return await resume_either(cls, self, feedback, answer, run_id, persistence, max_method_calls)

    aresume = resume_async  # crewgraph's name for it


async def resume_either(
    cls: type[Flow[Any]], flow: Flow[Any] | None, first: Any, answer: Any, run_id: str,
    persistence: FlowPersistence | None, limit: int | None,
) -> Any:
    """Both resume forms: CrewAI's (a flow from ``from_pending``: ``first`` is the feedback)
    and crewgraph's (``first`` -- or ``run_id=`` -- is a run id, then its answer)."""
    if flow is not None and flow._pending_context is not None:
        if answer is not None or run_id:
            raise TypeError("flow.resume(feedback) takes one argument: this flow was loaded with from_pending")
        from crewgraph.flow._feedback import resume_feedback

        return await resume_feedback(flow, "" if first is None else str(first))
    target = run_id or (first if isinstance(first, str) else "")
    if not target:
        raise ValueError(
            "nothing to resume: give the run id (Flow.resume(run_id, answer)), or load a flow paused "
            "for feedback with MyFlow.from_pending(flow_id) and call flow.resume(feedback)"
        )
    if run_id and first not in ("", None):
        answer = first if answer is None else answer
    from crewgraph.flow._resume import resume_run

    return await resume_run(flow, cls, target, answer, persistence, limit)
