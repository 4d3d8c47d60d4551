"""``Flow.resume(run_id, answer)``: continue a paused (or killed) persisted run, in any process.

The run's record in the flow store names the flow class (module, qualified
name, source file), the state id and the questions it waits for. Resuming
stores the answer with the record, restores the state and replays the
journal: no completed method runs again (see :mod:`crewgraph.flow._run`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.persistence import FlowPersistence

__all__ = ["find_run", "load_flow_class", "resume_run"]


def find_run(store: FlowPersistence, run_id: str) -> dict[str, Any]:
    if not store.supports_runs:
        raise ValueError(f"{store!r} keeps no run journal, so runs cannot be resumed from it")
    record = store.load_run(run_id)
    if record is None:
        raise ValueError(
            f"no flow run {run_id!r} in {store!r} (a flow paused for feedback resumes with "
            "MyFlow.from_pending(flow_id).resume(feedback))"
        )
    return record


def load_flow_class(ref: dict[str, Any]) -> type[Flow[Any]]:
    """Import the flow class a run record names (a script's ``__main__`` is loaded from its file)."""
    from crewgraph.flow.flow import Flow

    module_name, qualname, file = ref.get("module"), str(ref.get("qualname", "")), ref.get("file")
    if ref.get("definition"):
        from crewgraph.flow.definition import load_flow

        return load_flow(str(ref["definition"]))
    if "<locals>" in qualname:
        raise ValueError(
            f"flow class {qualname!r} was defined inside a function, so it cannot be found again by name; "
            "resume with an instance: MyFlow().resume(run_id, answer)"
        )
    module: Any = None
    if module_name and module_name != "__main__":
        try:
            module = importlib.import_module(str(module_name))
        except ImportError:
            module = None
    if module is None and file and Path(file).is_file():
        name = f"crewgraph_resumed_{abs(hash(file))}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, file)
            if spec is None or spec.loader is None:
                raise ValueError(f"cannot load the flow's source file {file!r}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    if module is None:
        raise ValueError(f"cannot import the flow class {module_name}.{qualname} (file: {file})")
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if not (isinstance(found, type) and issubclass(found, Flow)):
        raise ValueError(f"{module_name}.{qualname} is not a Flow class")
    return found


def _answers(record: dict[str, Any], answer: Any) -> dict[str, str]:
    answers = dict(record.get("answers") or {})
    pending = list(record.get("pending") or [])
    if not pending:
        if answer is not None:
            raise ValueError(f"flow run {record['run_id']!r} is not waiting for an answer (status {record.get('status')!r})")
        return answers
    if answer is None:
        asked = "; ".join(f"{p['method']}: {p['question']}" for p in pending)
        raise ValueError(f"flow run {record['run_id']!r} waits for an answer ({asked}); give the answer (answer=... or --answer TEXT)")
    if isinstance(answer, dict):
        for p in pending:
            given = answer.get(p["key"], answer.get(p["method"]))
            if given is None:
                raise ValueError(f"no answer for method {p['method']!r} ({p['question']!r})")
            answers[p["key"]] = str(given)
        return answers
    if len(pending) > 1:
        names = ", ".join(repr(p["method"]) for p in pending)
        raise ValueError(f"flow run {record['run_id']!r} waits for {len(pending)} answers ({names}): "
                         "pass a dict {method: answer}")
    answers[pending[0]["key"]] = str(answer)
    return answers


async def resume_run(
    flow: Flow[Any] | None,
    cls: type[Flow[Any]] | None,
    run_id: str,
    answer: Any,
    persistence: FlowPersistence | None,
    limit: Any,
) -> Any:
    from crewgraph.checkpoint.lease import holding
    from crewgraph.flow._lease import take_flow_lease
    from crewgraph.flow._run import kickoff_flow
    from crewgraph.flow.persistence import resolve_class_store

    store = persistence or resolve_class_store(type(flow) if flow is not None else cls, flow)
    seen = find_run(store, run_id)  # a clear error for an unknown run before waiting on any lease
    # The lease before the record: a resumer that waited reads what the holder left (an
    # answered run no longer waits; the method after the answer runs once).
    keeper, owns = await take_flow_lease(flow if flow is not None else cls, store, run_id)
    if keeper is None or not owns:
        return await _resume_leased(flow, cls, store, seen, answer, persistence, limit, kickoff_flow)
    with holding(keeper):  # handed on to the run, released when it ends
        return await _resume_leased(flow, cls, store, seen, answer, persistence, limit, kickoff_flow)


def _questions(record: dict[str, Any]) -> list[str]:
    return [str(p.get("key")) for p in record.get("pending") or []]


async def _resume_leased(flow: Flow[Any] | None, cls: Any, store: FlowPersistence, seen: dict[str, Any], answer: Any,
                         persistence: FlowPersistence | None, limit: Any, kickoff_flow: Any) -> Any:
    run_id = str(seen["run_id"])
    record = find_run(store, run_id)
    if answer is not None and record.get("status") != "completed" and _questions(record) != _questions(seen):
        # Another process answered while this one waited, and the run now asks something else:
        # this answer was given to the earlier question, not to the new one.
        now = "; ".join(f"{p['method']}: {p['question']}" for p in record.get("pending") or []) or "nothing"
        raise ValueError(f"flow run {run_id!r} was answered by another process meanwhile and now waits for: "
                         f"{now}; resume it again with the answer to that")
    if record.get("status") == "completed":
        raise ValueError(f"flow run {run_id!r} already completed; nothing to resume")
    if flow is None:
        from crewgraph.flow.flow import Flow

        ref = record.get("flow") or {}
        if cls is None or cls is Flow:
            found = load_flow_class(ref)  # Flow.resume(...): the run names its class
        elif ref.get("qualname") not in (None, cls.__qualname__):
            raise ValueError(f"run {run_id!r} is a run of {ref.get('qualname')}, not of {cls.__qualname__}")
        else:
            found = cls
        flow = found(persistence=persistence) if persistence is not None else found()
    elif persistence is not None:
        flow._persistence = persistence
    asked = [p for p in record.get("pending") or [] if "output" not in p]
    if asked and flow.input_provider is None:
        from crewgraph.flow.flow_config import flow_config

        if flow_config.input_provider is None:
            # The run paused for a question: if it asks again, it pauses again.
            flow.input_provider = "persisted"
    record["answers"] = _answers(record, answer)
    limit = flow.max_method_calls if limit is None else limit
    return await kickoff_flow(flow, {"id": record["flow_uuid"]}, limit, resume=record)
