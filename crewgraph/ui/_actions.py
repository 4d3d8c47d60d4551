"""What the buttons do: kick off, resume, answer and fork, each as a job of :class:`LiveRuns`.

Every check that can fail on bad input runs *before* the job starts, so the
caller gets a JSON error naming the field instead of a job that fails later.
The run itself uses the library's own entry points: ``kickoff(inputs=...)``,
``kickoff(from_checkpoint=run_id)`` (``crewgraph checkpoints resume``),
``Flow.resume(run_id, answer)`` (``crewgraph flows resume --answer``) and
``SQLiteCheckpointStore.fork(run_id, exclude=...)`` (``crewgraph replay``).
"""

from __future__ import annotations

from typing import Any

from crewgraph.ui.errors import ApiError

__all__ = ["Actions"]

_FINAL_CREW = frozenset({"completed"})


def _drain(result: Any) -> Any:
    from crewgraph.streaming import CrewStreamingOutput

    if isinstance(result, CrewStreamingOutput):
        for _chunk in result:
            pass
        return result.result
    return result


def _descendants(plan: Any, node_id: str) -> set[str]:
    seen = {node_id}
    todo = [node_id]
    while todo:
        for succ in plan.execution_successors(todo.pop()):
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return seen


class Actions:
    """The server's write side, over its settings, registry and live runs."""

    def __init__(self, settings: Any, registry: Any, live: Any) -> None:
        self.settings = settings
        self.registry = registry
        self.live = live

    # helpers -----------------------------------------------------------------
    def _run(self, run_id: str) -> dict[str, Any]:
        from crewgraph.errors import CheckpointError
        from crewgraph.ui._runs import find_run

        try:
            run = find_run(self.settings.checkpoint_db(), self.settings.flow_state_db(), run_id)
        except CheckpointError as exc:
            raise ApiError(400, str(exc), "run_id") from None
        if run is None:
            if self.live.job_for(run_id) is not None:
                raise ApiError(409, f"run {run_id} is kept in no store (its flow is not persisted), so it "
                               "cannot be resumed, answered or forked", "run_id")
            raise ApiError(404, f"no run {run_id!r} in the checkpoint or flow databases", "run_id")
        return run

    def _not_running_here(self, run: dict[str, Any]) -> None:
        if self.live.running(run["run_id"]):
            raise ApiError(409, f"run {run['run_id']} is running in this server; wait for it to end", "run_id")

    def _target_for(self, run: dict[str, Any]) -> Any:
        from crewgraph.cli._errors import UserError

        try:
            return self.registry.for_run(run["name"], run.get("factory"))
        except UserError as exc:
            raise ApiError(409, str(exc), "run_id") from None

    # actions -----------------------------------------------------------------
    def kickoff(self, target: str | None, inputs: dict[str, Any]) -> Any:
        from crewgraph.cli._errors import UserError

        try:
            ref = self.registry.get(target)
            found = self.registry.build(ref)
        except UserError as exc:
            raise ApiError(404 if target else 400, str(exc), "target") from None
        data = {**ref.default_inputs, **inputs}
        missing = [name for name in ref.inputs if name not in data]
        if missing:
            raise ApiError(422, f"{ref.name} needs the inputs {', '.join(missing)}", f"inputs.{missing[0]}")
        obj = found.obj
        return self.live.submit("kickoff", ref.name, lambda: _drain(obj.kickoff(inputs=data)),
                                graph_of=lambda: getattr(obj, "run_graph", None))

    def resume(self, run_id: str, inputs: dict[str, Any]) -> Any:
        run = self._run(run_id)
        self._not_running_here(run)
        if run["store"] == "flows":
            if run["status"] == "paused":
                raise ApiError(409, f"flow run {run['run_id']} waits for an answer: POST /runs/{run['run_id']}/answer",
                               "answer")
            if run["status"] == "completed":
                raise ApiError(409, f"flow run {run['run_id']} already completed; nothing to resume", "run_id")
            if inputs:
                raise ApiError(422, "a flow run resumes with its saved state; inputs are not accepted", "inputs")
            return self._flow_resume(run, None, "resume")
        if run["status"] == "paused":
            raise ApiError(409, f"run {run['run_id']} waits for a review: POST /runs/{run['run_id']}/answer",
                           "answer")
        if run["status"] in _FINAL_CREW:
            raise ApiError(409, f"run {run['run_id']} already completed; fork it from a node to run it again",
                           "run_id")
        found = self._target_for(run)
        data = {**run["inputs"], **inputs}
        obj = found.obj
        full = run["run_id"]
        return self.live.submit("resume", run["name"],
                                lambda: _drain(obj.kickoff(inputs=data, from_checkpoint=full)), run_id=full)

    def answer(self, run_id: str, answer: str | dict[str, str]) -> Any:
        run = self._run(run_id)
        self._not_running_here(run)
        if run["status"] != "paused":
            raise ApiError(409, f"run {run['run_id']} is not waiting for an answer (status {run['status']})",
                           "answer")
        methods = {p["method"] for p in run["pending"]} | {p["key"] for p in run["pending"]}
        if isinstance(answer, dict):
            unknown = sorted(set(answer) - methods)
            if unknown:
                raise ApiError(422, f"the run waits for no method named {unknown[0]!r} "
                               f"(waiting: {', '.join(sorted(p['method'] for p in run['pending']))})",
                               f"answer.{unknown[0]}")
        elif len(run["pending"]) > 1:
            raise ApiError(422, "the run waits for several answers: give {method: answer}", "answer")
        if run["store"] == "flows":
            return self._flow_resume(run, answer, "answer")
        found = self._target_for(run)  # crew.resume(run_id, answer): "" accepts the draft
        obj, full = found.obj, run["run_id"]
        return self.live.submit("answer", run["name"], lambda: obj.resume(full, answer), run_id=full)

    def _flow_resume(self, run: dict[str, Any], answer: Any, action: str) -> Any:
        from crewgraph.flow import Flow
        from crewgraph.ui._runs import open_flow_store

        store = open_flow_store(self.settings.flow_state_db())
        full = run["run_id"]
        return self.live.submit(action, run["name"], lambda: Flow.resume(full, answer, persistence=store),
                                run_id=full)

    def fork(self, run_id: str, node_id: str, branch: str | None, inputs: dict[str, Any]) -> tuple[str, Any]:
        from crewgraph.checkpoint.location import open_checkpoint_store

        run = self._run(run_id)
        if run["store"] != "checkpoints":
            raise ApiError(422, "forking works on crew runs (the checkpoint store); flow runs resume instead",
                           "run_id")
        found = self._target_for(run)
        data = {**run["inputs"], **inputs}
        plan = found.obj.compile(data) if data else found.obj.compile()
        if node_id not in plan:
            raise ApiError(422, f"node {node_id!r} is not in the plan of {run['name']!r}", "node_id")
        exclude = _descendants(plan, node_id)
        with open_checkpoint_store(self.settings.checkpoint_db()) as store:
            new_id = store.fork(run["run_id"], branch or f"fork:{node_id}", exclude=exclude)
        obj = found.obj
        job = self.live.submit("fork", run["name"],
                               lambda: _drain(obj.kickoff(inputs=data, from_checkpoint=new_id)), run_id=new_id)
        return new_id, job
