"""A crew's task callbacks (``Task.callback``, ``Crew.task_callback``) for one run.

They run off the scheduler's thread (see ``_internal.callbacks``), after the
task's output is checkpointed and before the tasks that depend on it start.
One that raises fails the run with a ``CallbackError`` naming it.

With checkpointing on, each callback that completes is recorded in the run's
meta (:data:`DONE_KEY`), so ``kickoff(from_checkpoint=...)`` runs again, for
a restored task, exactly the callbacks that had not completed -- because one
raised or because the process died first -- and never one that had. Task
callbacks are therefore *at least once*, like the tools they usually call.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from crewgraph._internal.callbacks import call_user_callback

if TYPE_CHECKING:
    from crewgraph.outputs import TaskOutput
    from crewgraph.spec.crew import CrewSpec
    from crewgraph.spec.task import Task

__all__ = ["DONE_KEY", "TaskCallbacks"]

DONE_KEY = "callbacks_done"
"""Run-meta key: ``["<node id>:<kind>", ...]``, the task callbacks that completed."""

_KINDS = ("Task.callback", "task_callback")


class TaskCallbacks:
    """The task callbacks of one run, with the checkpoint's record of completed ones."""

    def __init__(self, crew: CrewSpec, store: Any, run_id: str) -> None:
        self.crew = crew
        self.store = store if store is not None and hasattr(store, "update_meta") else None
        self.run_id = run_id
        self.done: set[str] = set()
        if self.store is not None:
            try:
                self.done = set(self.store.load_meta(run_id).get(DONE_KEY) or ())
            except Exception:  # a fresh run is not in the store yet
                self.done = set()

    def _callbacks(self, task: Task) -> list[tuple[str, Any]]:
        found = zip(_KINDS, (task.callback, self.crew.task_callback), strict=True)
        return [(kind, cb) for kind, cb in found if cb is not None]

    def finished(self, node_id: str, task: Task, output: TaskOutput) -> Coroutine[Any, Any, None] | None:
        """The coroutine running the task's callbacks, or None when it has none."""
        callbacks = self._callbacks(task)
        return self._run(node_id, task, output, callbacks) if callbacks else None

    def restored(self, node_id: str, task: Task, output: TaskOutput) -> Coroutine[Any, Any, None] | None:
        """For a restored task: its callbacks that had not completed in the resumed run."""
        if self.store is None:
            return None
        callbacks = [(k, cb) for k, cb in self._callbacks(task) if f"{node_id}:{k}" not in self.done]
        return self._run(node_id, task, output, callbacks) if callbacks else None

    async def _run(self, node_id: str, task: Task, output: TaskOutput, callbacks: list[tuple[str, Any]]) -> None:
        where = f"task {output.name or task.display_name()!r}"
        for kind, cb in callbacks:
            await call_user_callback(cb, output, kind=kind, where=where)
            if self.store is not None:
                self.done.add(f"{node_id}:{kind}")
                self.store.update_meta(self.run_id, {DONE_KEY: sorted(self.done)})
