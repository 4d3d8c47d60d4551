"""What ``Crew.kickoff`` does: compile, run on the scheduler, assemble the CrewOutput.

Kept apart from ``crew.py`` so the facade is only its API. Per-task side
effects (output files, callbacks, TaskCompletedEvent) happen as soon as a
task's final node finishes, not after the whole run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crewgraph._internal.run_context import current_run_id
from crewgraph.errors import ConfigurationError
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.crew_events import (
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
    TaskCompletedEvent,
    TaskFailedEvent,
)
from crewgraph.graph.node import Node
from crewgraph.graph.run_state import RunState
from crewgraph.ids import new_run_id
from crewgraph.outputs import CrewOutput, TaskOutput

if TYPE_CHECKING:
    from crewgraph.crew import Crew
    from crewgraph.spec.task import Task
    from crewgraph.streaming import StreamChunk

__all__ = ["kickoff_crew"]


async def kickoff_crew(
    crew: Crew,
    inputs: dict[str, Any] | None,
    *,
    from_checkpoint: Any = None,
    on_chunk: Callable[[StreamChunk], None] | None = None,
) -> CrewOutput:
    """Run ``crew`` once. With ``on_chunk`` (a streaming kickoff), agent steps stream their model
    calls and every delta reaches ``on_chunk`` as a labelled ``StreamChunk``."""
    from crewgraph.runtime import Scheduler

    inputs = dict(inputs or {})
    for cb in crew.before_kickoff_callbacks:
        changed = cb(inputs)
        if changed is not None:
            inputs = dict(changed)
    checkpoint = _checkpoint_setup(crew, from_checkpoint, inputs)
    inputs = checkpoint.inputs if checkpoint.inputs is not None else inputs
    # Inside a flow run, share the flow's run id so its events include the crew's
    # (not when checkpointing: the checkpoint store is keyed by the crew's own run).
    parent = current_run_id() if checkpoint.store is None else None
    run_id = checkpoint.run_id or parent or new_run_id()
    graph = crew.compile(inputs)
    from crewgraph.runtime.cassette import apply_cassette

    graph, default_llm, _tape = apply_cassette(graph, crew.llm, crew.cassette)  # record/replay, if on
    tasks_by_final = {p["final"]: (p, crew.tasks[p["index"]]) for p in graph.meta["tasks"]}
    state = _run_state(crew)
    if on_chunk is not None:
        from crewgraph.streaming.chunks import chunk_sink

        state.stream = chunk_sink(crew, graph, inputs, on_chunk)
    memory = crew.get_memory()
    listener = _console(crew, run_id)
    start = time.perf_counter()

    def emit_crew(event: Any) -> None:
        event.run_id = run_id
        crewgraph_event_bus.emit(crew, event)

    def on_node_finished(node: Node, output: Any) -> None:
        entry = tasks_by_final.get(node.id)
        if entry is not None and isinstance(output, TaskOutput):
            _task_done(crew, entry[1], output, inputs, run_id)

    def on_node_restored(node: Node, output: Any) -> None:
        # Callbacks and events fired in the run that computed this output; only make sure
        # its output file exists (the process may have died between the save and the write).
        entry = tasks_by_final.get(node.id)
        if entry is not None and isinstance(output, TaskOutput):
            path = entry[1].output_path(inputs)
            if path is not None and not path.exists():
                _write_output_file(entry[1], output, inputs)

    emit_crew(CrewKickoffStartedEvent(crew_name=crew.name, inputs=inputs))
    scheduler = Scheduler(
        graph,
        llm=default_llm,
        memory=memory,
        inputs=inputs,
        run_id=run_id,
        state=state,
        max_concurrency=crew.max_concurrency,
        checkpointer=checkpoint.store,
        restored=checkpoint.restored,
        on_node_finished=on_node_finished,
        on_node_restored=on_node_restored,
        source=crew,
    )
    try:
        from crewgraph.runtime.llm_trace import LLMCallTracer
        from crewgraph.tools.mcp.sessions import run_sessions

        # each LLM call becomes a child node of the run graph; MCP sessions live for this run
        with LLMCallTracer(scheduler, crew):
            async with run_sessions():
                result = await scheduler.run()
    except BaseException as exc:
        failed = _failed_task(graph, scheduler)
        if failed is not None:
            emit_crew(TaskFailedEvent(task_name=failed, error=str(exc)))
        emit_crew(CrewKickoffFailedEvent(crew_name=crew.name, error=str(exc)))
        raise
    finally:
        if memory is not None and hasattr(memory, "drain_writes"):
            memory.drain_writes()
        if listener is not None:
            listener.close()
        if checkpoint.store is not None and hasattr(checkpoint.store, "close"):
            checkpoint.store.close()
    output = _crew_output(graph, result)
    for cb in crew.after_kickoff_callbacks:
        changed = cb(output)
        if changed is not None:
            output = changed
    crew.usage_metrics = output.token_usage
    crew._last_run = result
    emit_crew(
        CrewKickoffCompletedEvent(
            crew_name=crew.name,
            output=output.raw,
            total_tokens=output.token_usage.total_tokens,
            duration_ms=(time.perf_counter() - start) * 1000,
        )
    )
    return output


class _Checkpoint:
    def __init__(
        self,
        store: Any = None,
        run_id: str | None = None,
        restored: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
    ):
        self.store = store
        self.run_id = run_id
        self.restored = restored or {}
        self.inputs = inputs


def _checkpoint_setup(crew: Crew, from_checkpoint: Any, inputs: dict[str, Any]) -> _Checkpoint:
    """Resolve the checkpoint store and, when resuming, the outputs already computed
    (and the run's own inputs, when a resume passes none)."""
    if not crew.checkpoint and from_checkpoint is None:
        return _Checkpoint()
    from crewgraph.checkpoint.setup import resolve_checkpoint

    resolved = resolve_checkpoint(crew, from_checkpoint, inputs=inputs)
    return _Checkpoint(resolved.store, resolved.run_id, resolved.restored, resolved.inputs)


def _run_state(crew: Crew) -> RunState:
    state = RunState()
    limiters: dict[str, Any] = {}
    if crew.max_rpm or any(a.max_rpm for a in [*crew.agents, crew.manager_agent] if a is not None):
        from crewgraph.llm.rate_limit import RPMLimiter

        if crew.max_rpm:
            limiters["crew"] = RPMLimiter(crew.max_rpm)
        for agent in [*crew.agents, *([crew.manager_agent] if crew.manager_agent else [])]:
            if agent.max_rpm:
                limiters[f"agent:{agent.id}"] = RPMLimiter(agent.max_rpm)
    state.limiters.update(limiters)
    if crew.input_provider is not None:
        state.extras["input_provider"] = crew.input_provider
    return state


def _console(crew: Crew, run_id: str) -> Any:
    if not (crew.verbose or any(a.verbose for a in crew.agents)):
        return None
    from crewgraph.events.console import ConsoleListener

    return ConsoleListener(run_id=run_id)


def _write_output_file(task: Task, output: TaskOutput, inputs: dict[str, Any]) -> None:
    """Write the task's output to its ``output_file``; an OS error becomes a ConfigurationError
    naming the task, the field and the path (a bare ``IsADirectoryError`` names none of them)."""
    path = task.output_path(inputs)
    if path is None:
        return
    if output.json_dict is not None:
        text = json.dumps(output.json_dict, indent=2, ensure_ascii=False)
    elif output.pydantic is not None:
        text = output.pydantic.model_dump_json(indent=2)
    else:
        text = output.raw
    try:
        if task.create_directory:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
        hint = "" if task.create_directory else " (create_directory=False: the folder must exist)"
        raise ConfigurationError(
            f"task {output.name or task.display_name()!r}: cannot write its output_file "
            f"{str(path)!r}: {exc.strerror or exc}{where}{hint}"
        ) from exc


def _task_done(crew: Crew, task: Task, output: TaskOutput, inputs: dict[str, Any], run_id: str) -> None:
    _write_output_file(task, output, inputs)
    event = TaskCompletedEvent(task_name=output.name or task.display_name(), agent_role=output.agent, output=output.raw)
    event.run_id = run_id
    crewgraph_event_bus.emit(crew, event)
    if task.callback is not None:
        task.callback(output)
    if crew.task_callback is not None:
        crew.task_callback(output)


def _crew_output(graph: Any, result: Any) -> CrewOutput:
    tasks_output: list[TaskOutput] = []
    for plan in graph.meta["tasks"]:
        out = result.outputs.get(plan["final"])
        if isinstance(out, TaskOutput):
            tasks_output.append(out)
    final = result.outputs.get(graph.meta["final"])
    last = final if isinstance(final, TaskOutput) else (tasks_output[-1] if tasks_output else None)
    failures = [f for t in tasks_output for f in t.tool_failures]
    return CrewOutput(
        raw=last.raw if last else "",
        pydantic=last.pydantic if last else None,
        json_dict=last.json_dict if last else None,
        tasks_output=tasks_output,
        token_usage=result.usage,
        tool_failures=failures,
        run_id=result.run_id,
        graph=result.run_graph,
    )


def _failed_task(graph: Any, scheduler: Any) -> str | None:
    for plan in graph.meta.get("tasks", []):
        for nid, rec in scheduler.records.items():
            if rec.status == "failed" and nid.startswith(plan["key"] + "."):
                return str(plan["name"])
    return None
