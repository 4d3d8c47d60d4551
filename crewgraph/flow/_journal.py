"""The run journal of a persisted flow: what completed, so a resumed run skips it.

One :class:`Journal` per kickoff. After each fresh method execution it saves
the flow state (what ``@persist`` always did) and, when the class-level store
keeps a journal, the method's output -- both in one transaction, so a kill
between them cannot leave a state that says "done" with no output, or the
reverse. :func:`load_replay` reads a run back as per-method queues of outputs.

Outputs are pickled (like crew checkpoints: values must come back as the same
objects). An output that cannot be pickled is journaled as "re-run": on
resume that execution runs again.
"""

from __future__ import annotations

import base64
import inspect
import logging
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crewgraph.flow.human_feedback import PendingQuestion, PendingRun
from crewgraph.flow.state import state_id, state_to_dict
from crewgraph.nodes.flow_pause import RERUN

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.persistence import FlowPersistence

__all__ = ["Journal", "flow_class_ref", "load_replay"]

logger = logging.getLogger("crewgraph.flow")


def dump_output(output: Any) -> tuple[bytes | None, str | None]:
    """``(blob, None)``, or ``(None, reason)`` when the value cannot be pickled (the
    same rule as crew checkpoints; not imported from there: that loads sqlite3)."""
    try:
        return pickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL), None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"


def load_output(blob: bytes) -> Any:
    return pickle.loads(blob)


def flow_class_ref(cls: type) -> dict[str, Any]:
    """Where a later process finds the flow class again (module, name, source file)."""
    try:
        file = inspect.getfile(cls)
    except (TypeError, OSError):
        file = None
    ref: dict[str, Any] = {"module": cls.__module__, "qualname": cls.__qualname__, "file": file}
    definition = getattr(cls, "__flow_definition__", None)
    lines = definition.__dict__.get("_lines") if definition is not None else None
    if lines is not None and Path(lines.path).is_file():
        ref["definition"] = str(Path(lines.path).resolve())  # a declarative flow: its file
    return ref


def _b64(value: Any) -> str | None:
    blob, _ = dump_output(value)
    return base64.b64encode(blob).decode("ascii") if blob is not None else None


class Journal:
    """Saves state and completions of one run (a no-op without stores)."""

    def __init__(
        self, flow: Flow[Any], run_id: str, stores: dict[str, tuple[Any, bool]], store: FlowPersistence | None,
        *, keeper: Any = None,
    ) -> None:
        self.flow = flow
        self.run_id = run_id
        self.stores = stores
        self.store = store
        self.keeper = keeper
        """The run's lease: a store that cannot fence its own writes (no ``fence``) has each
        write checked through the lease backend first; once it is lost nothing more is saved."""
        self._verify = keeper is not None and store is not None and not hasattr(store, "fence")
        self.seq = 0
        self.record_base: dict[str, Any] = {}
        self.initial: dict[str, Any] | None = None

    def start(self, resume: dict[str, Any] | None, payload: Any) -> None:
        if self.store is None:
            return
        self.record_base = {
            "flow": flow_class_ref(type(self.flow)),
            "flow_name": self.flow.flow_name,
            "answers": dict((resume or {}).get("answers") or {}),
            "resumed": int((resume or {}).get("resumed", -1)) + 1,
        }
        for lineage in ("parent_run_id", "branch"):  # a fork keeps where it came from
            if (resume or {}).get(lineage) is not None:
                self.record_base[lineage] = resume[lineage]  # type: ignore[index]
        kept = [
            {"key": p["key"], "output": p["output"]}
            for p in [*((resume or {}).get("prepared") or []), *((resume or {}).get("pending") or [])]
            if p.get("output") is not None
        ]
        if kept:
            # Outputs of answered @human_feedback methods: kept until they complete.
            self.record_base["prepared"] = kept
        if payload is not None:
            self.record_base["trigger_payload"] = payload
        if resume is None:
            # The state before any method ran: what a run paused before any method completed
            # resumes on (saved only then; see pause()).
            self.initial = state_to_dict(self.flow.state)
        self._save("running")

    def _check(self) -> None:
        if self._verify:
            self.keeper.verify()

    def _save(self, status: str, **more: Any) -> None:
        assert self.store is not None
        self._check()
        self.store.save_run(self.run_id, state_id(self.flow.state), {**self.record_base, "status": status, **more})

    def record(self, method: str, output: Any) -> None:
        """After a fresh execution of ``method``: save the state (and journal the output)."""
        from crewgraph.flow.persistence import save

        state = self.flow.state
        flow_uuid = state_id(state)
        target = self.stores.get(method) or self.stores.get("")
        if self.store is not None:
            blob, why = dump_output(output)
            if blob is None:
                logger.warning("flow %r: output of %r cannot be stored (%s); it re-runs on resume",
                               self.flow.flow_name, method, why)
            self._check()
            self.store.save_step(self.run_id, self.seq, method, blob or b"", flow_uuid, state)
            self.seq += 1
            if target is not None and target[0] is not self.store:
                save(target[0], flow_uuid, method, state, target[1])
            elif target is not None and target[1]:
                logger.info("saved state %s after %s", flow_uuid, method)
        elif target is not None:
            save(target[0], flow_uuid, method, state, target[1])

    def pause(self, paused: dict[str, dict[str, Any]]) -> PendingRun:
        questions = tuple(
            PendingQuestion(method=p["method"], question=p["question"], key=p["key"]) for p in paused.values()
        )
        if self.store is not None:
            flow_uuid = state_id(self.flow.state)
            self._check()
            if any("output" in p for p in paused.values()):
                # A @human_feedback method's body completed (its output is kept and it does
                # not run again): its state changes must be kept too.
                self.store.save_state(flow_uuid, "<paused>", self.flow.state)
            elif self.seq == 0 and self.initial is not None:
                self.store.save_state(flow_uuid, "<kickoff>", self.initial)
            pending = []
            for p in paused.values():
                entry = {"method": p["method"], "question": p["question"], "key": p["key"]}
                if "output" in p:
                    entry["output"] = _b64(p["output"])
                pending.append(entry)
            self._save("paused", pending=pending)
        return PendingRun(
            run_id=self.run_id, flow_id=state_id(self.flow.state), flow_name=self.flow.flow_name, questions=questions
        )

    def finish(self, status: str, error: str | None = None, output: Any = None) -> None:
        """The run's final status; a completed run keeps its result (what a re-issued
        ``run_key`` returns without running anything). A failure is not recorded once the lease
        was lost (the run's record is the new holder's); a completion then raises LeaseLostError
        from the fenced write, so the late holder never reports success."""
        if self.keeper is not None and self.keeper.lost and status != "completed":
            return
        if self.store is not None:
            more: dict[str, Any] = {"error": error} if error else {}
            if status == "completed":
                more["output"] = _b64(output)
            self._save(status, **more)


def load_replay(store: FlowPersistence, record: dict[str, Any]) -> tuple[dict[str, list[Any]], dict[str, Any], int]:
    """``(outputs per method, prepared outputs per execution, next seq)`` of a journaled run."""
    replay: dict[str, list[Any]] = {}
    steps = store.load_steps(str(record["run_id"]))
    for method, blob in steps:
        replay.setdefault(method, []).append(load_output(blob) if blob else RERUN)
    prepared: dict[str, Any] = {}
    for p in [*(record.get("prepared") or []), *(record.get("pending") or [])]:
        if p.get("output") is not None:
            prepared[str(p["key"]).rsplit("#", 1)[0]] = load_output(base64.b64decode(p["output"]))
    return replay, prepared, len(steps)
