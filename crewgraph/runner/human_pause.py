"""A crew run paused for a person's review, saved in its checkpoint and resumed with the answer.

When a ``Task(human_input=True)`` step of a checkpointed crew whose
``input_provider`` pauses (``"persisted"``) has a draft answer, the step returns
a pending result; the scheduler ends the run ``paused``. This module keeps, in
the run's checkpoint meta (key :data:`PAUSE_META_KEY`):

- ``pending``: per paused step, the task, the question, the draft, the question
  key and the step's conversation (pickled, base64) to continue from;
- ``answers``: every answer given so far, by question key.

``crew.resume(run_id, answer)`` records the answer (:func:`record_answer`) and
resumes the run from its checkpoint: completed nodes are restored, the paused
step continues its conversation with the feedback (an empty answer accepts the
draft), and may pause again when it asks for another review.
"""

from __future__ import annotations

import base64
import logging
import pickle
from typing import Any

from crewgraph.errors import CheckpointError, ConfigurationError
from crewgraph.nodes.human_input import HumanInputState, provider_pauses
from crewgraph.outputs import CrewOutput, PendingCrewRun, PendingTaskQuestion

__all__ = [
    "PAUSE_META_KEY",
    "clear_pause",
    "pause_state",
    "paused_output",
    "record_answer",
    "resume_crew",
    "save_pause",
]

PAUSE_META_KEY = "human_input"
"""Run-meta key of the reviews a paused crew run waits for and the answers given."""

logger = logging.getLogger("crewgraph.checkpoint")


def pause_state(crew: Any, store: Any, run_id: str | None) -> HumanInputState | None:
    """The run's review state when the crew's provider pauses (None: it does not).

    A pausing provider on a crew that is not checkpointed cannot be resumed: a
    :class:`ConfigurationError` names the task that would pause."""
    if not provider_pauses(crew.input_provider):
        return None
    if store is None or run_id is None:
        task = next((t for t in crew.tasks if t.human_input), None)
        if task is None:
            return None
        raise ConfigurationError(
            f"task {task.name or task.description[:40]!r} has human_input=True and the crew's "
            "input_provider pauses the run for the review, but the crew is not checkpointed: "
            "set Crew(checkpoint=True) so the paused run can be resumed, or use another input provider"
        )
    saved = _saved(store, run_id)
    paused: dict[str, Any] = {}
    for entry in saved.get("pending") or []:
        state = entry.get("state")
        if isinstance(state, str):
            try:
                paused[str(entry["node"])] = pickle.loads(base64.b64decode(state))
            except Exception as exc:  # its classes changed: the step starts over, asking the model again
                logger.warning("cannot restore the paused conversation of %r (%s); the task runs again",
                               entry.get("node"), exc)
    return HumanInputState(answers=dict(saved.get("answers") or {}), paused=paused)


def save_pause(store: Any, run_id: str, paused: dict[str, dict[str, Any]], state: HumanInputState | None) -> None:
    """Keep what the paused steps wait for (replacing what the run waited for before)."""
    pending = []
    for nid, p in paused.items():
        pending.append(
            {
                "node": nid,
                "task": p.get("task", nid),
                "agent": p.get("agent", ""),
                "question": p.get("question", ""),
                "draft": p.get("draft", ""),
                "key": p.get("key", nid),
                "state": base64.b64encode(pickle.dumps(p.get("loop"), protocol=pickle.HIGHEST_PROTOCOL)).decode(),
            }
        )
    answers = state.answers if state is not None else {}
    store.update_meta(run_id, {PAUSE_META_KEY: {"pending": pending, "answers": answers}})


def clear_pause(store: Any, run_id: str, state: HumanInputState | None) -> None:
    """The run no longer waits (it completed): keep the answers, drop the pending reviews."""
    if state is not None and (state.answers or state.paused):
        store.update_meta(run_id, {PAUSE_META_KEY: {"pending": [], "answers": state.answers}})


def paused_output(crew: Any, output: CrewOutput, paused: dict[str, dict[str, Any]]) -> PendingCrewRun:
    """The crew's result for a paused run: the tasks completed so far and the questions."""
    questions = [
        PendingTaskQuestion(
            task=str(p.get("task", nid)),
            agent=str(p.get("agent", "")),
            question=str(p.get("question", "")),
            draft=str(p.get("draft", "")),
            key=str(p.get("key", nid)),
        )
        for nid, p in paused.items()
    ]
    return PendingCrewRun(
        raw="",
        tasks_output=output.tasks_output,
        token_usage=output.token_usage,
        run_id=output.run_id,
        graph=output.graph,
        crew_name=crew.name or "crew",
        questions=questions,
    )


def record_answer(store: Any, run_ref: str, answer: Any) -> str:
    """Store ``answer`` for the review run ``run_ref`` waits for; returns the full run id.

    ``run_ref`` may be a unique prefix of the id. A dict answers several paused tasks
    (by task name or question key). Errors name the run: unknown (with the recent ids),
    completed, not paused although an answer is given, paused but no answer given.
    """
    run_id = store.resolve_run_id(run_ref)
    info = store.get_run(run_id)
    saved = _saved(store, run_id)
    pending = list(saved.get("pending") or []) if info.status == "paused" else []
    if info.status == "completed":
        raise CheckpointError(f"crew run {run_id!r} already completed; nothing to resume")
    if not pending:
        if answer is not None:
            raise CheckpointError(
                f"crew run {run_id!r} is not paused waiting for a review (status {info.status!r}); "
                "resume it without an answer"
            )
        return run_id
    if answer is None:
        asked = "; ".join(f"task {p['task']!r}" for p in pending)
        raise CheckpointError(
            f"crew run {run_id!r} is paused waiting for a review ({asked}); give the answer "
            "(crew.resume(run_id, answer) or --answer TEXT; an empty answer accepts the draft)"
        )
    answers = dict(saved.get("answers") or {})
    if isinstance(answer, dict):
        for p in pending:
            given = answer.get(p["key"], answer.get(p["task"]))
            if given is None:
                raise CheckpointError(f"no answer for task {p['task']!r} (crew run {run_id!r})")
            answers[p["key"]] = str(given)
    elif len(pending) > 1:
        names = ", ".join(repr(p["task"]) for p in pending)
        raise CheckpointError(
            f"crew run {run_id!r} waits for {len(pending)} reviews ({names}): pass a dict {{task: answer}}"
        )
    else:
        answers[pending[0]["key"]] = str(answer)
    store.update_meta(run_id, {PAUSE_META_KEY: {**saved, "answers": answers}})
    return run_id


def _saved(store: Any, run_id: str) -> dict[str, Any]:
    saved = store.load_meta(run_id).get(PAUSE_META_KEY)
    return saved if isinstance(saved, dict) else {}


async def resume_crew(
    cls: type[Any], crew: Any, run_ref: str, answer: Any, *, factory: Any = None, path: Any = None
) -> CrewOutput:
    """``Crew.resume`` / ``crew.resume``: record ``answer`` for the paused run, then resume it.

    On an instance the run resumes with that crew; on the class the crew is rebuilt by
    ``factory`` or the factory the run recorded (see ``Crew.from_checkpoint``). The store is
    ``path``, else the crew's checkpoint path, else the default location."""
    from pathlib import Path

    from crewgraph.checkpoint.config import CheckpointConfig
    from crewgraph.checkpoint.location import is_store_url
    from crewgraph.checkpoint.setup import coerce_config, hold_run
    from crewgraph.runner.crew_run import run_crew
    from crewgraph.runner.resume import crew_from_checkpoint

    own = coerce_config(crew.checkpoint) if crew is not None else None
    if path is not None:
        config = CheckpointConfig(path=str(path) if is_store_url(path) else Path(path))
    else:
        config = own or CheckpointConfig()
    if not config.store_exists():
        raise CheckpointError(f"no crew run {run_ref!r}: there is no checkpoint database at {config.where!r}")
    with config.open_store() as store:
        run_id = store.resolve_run_id(run_ref)
        # Own the run before answering: a second answer to the same review must not run it again.
        with hold_run(store, run_id, config, what=f"crew run {run_id!r}"):
            record_answer(store, run_id, answer)
            bound = config.model_copy(update={"run_id": run_id, "branch": None, "enabled": True})
            if crew is None:
                return await run_crew(crew_from_checkpoint(cls, bound, factory=factory), None)
            return await run_crew(crew, None, from_checkpoint=bound)
