"""The one run path: a crew definition -> its plan -> the scheduler -> a CrewOutput.

``Crew.kickoff`` (and its async, for-each and streaming forms), a checkpoint
resume, ``Task.execute_sync`` and ``Agent.kickoff`` all end in
:func:`run_crew`; they differ only in the definition they hand it (a solo
task is a one-task crew) and in the hooks they pass (a chunk sink for a
stream, a prompt for a standalone agent). Nothing here imports a facade: the
crew arrives as a :class:`~crewgraph.spec.crew.CrewSpec`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crewgraph._internal.gc_scope import run_collector
from crewgraph._internal.interpolate import interpolate
from crewgraph._internal.run_context import current_run_id
from crewgraph.events.agent_events import AgentExecutionErrorEvent
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.crew_events import (
    CrewBaseEvent,
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
    TaskFailedEvent,
)
from crewgraph.graph.node import Node
from crewgraph.graph.run_state import RunState
from crewgraph.ids import new_run_id
from crewgraph.nodes.condition import is_skipped
from crewgraph.outputs import CrewOutput, TaskOutput
from crewgraph.runner.plan import compile_plan
from crewgraph.runner.task_effects import restore_output_file, task_done

if TYPE_CHECKING:
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.spec.crew import CrewSpec
    from crewgraph.streaming.chunks import StreamChunk

__all__ = ["PlanHook", "run_crew"]

PlanHook = Callable[["ExecutionGraph"], None]
"""Adjusts a freshly compiled plan before it runs (a standalone agent's conversation)."""


async def run_crew(
    crew: CrewSpec,
    inputs: dict[str, Any] | None,
    *,
    from_checkpoint: Any = None,
    on_chunk: Callable[[StreamChunk], None] | None = None,
    plan_hook: PlanHook | None = None,
    executor: Any = None,
) -> CrewOutput:
    """Run ``crew`` once. With ``on_chunk`` (a streaming kickoff), agent steps stream their model
    calls and every delta reaches ``on_chunk`` as a labelled ``StreamChunk``. With tracing on
    (``crew.tracing`` / ``$CREWGRAPH_TRACING``), the run's events also become OpenTelemetry spans.
    ``executor`` (else ``crew.executor``) decides where node steps run (a Ray cluster)."""
    from crewgraph.observability.run_tracing import traced_run

    with run_collector():  # compile and run: full collections spaced out (_internal/gc_scope)
        async with traced_run(crew, crew.tracing):
            return await _run_crew(crew, inputs, from_checkpoint=from_checkpoint, on_chunk=on_chunk,
                                   plan_hook=plan_hook, executor=executor)


async def _run_crew(
    crew: CrewSpec,
    inputs: dict[str, Any] | None,
    *,
    from_checkpoint: Any = None,
    on_chunk: Callable[[StreamChunk], None] | None = None,
    plan_hook: PlanHook | None = None,
    executor: Any = None,
) -> CrewOutput:
    from crewgraph.runner.boundary_hooks import BoundaryHooks

    boundary = BoundaryHooks(crew)
    inputs = await boundary.start(dict(inputs or {}))
    try:
        output = await _run_crew_bounded(crew, inputs, boundary, from_checkpoint=from_checkpoint,
                                         on_chunk=on_chunk, plan_hook=plan_hook, executor=executor)
    except BaseException as exc:
        await boundary.failed(exc)
        raise
    return await boundary.end(output)


async def _run_crew_bounded(
    crew: CrewSpec,
    inputs: dict[str, Any],
    boundary: Any,
    *,
    from_checkpoint: Any,
    on_chunk: Callable[[StreamChunk], None] | None,
    plan_hook: PlanHook | None,
    executor: Any,
) -> CrewOutput:
    for cb in crew.before_kickoff_callbacks:
        changed = cb(inputs)
        if changed is not None:
            inputs = dict(changed)
    inputs = await boundary.input(inputs)
    checkpoint = _checkpoint(crew, from_checkpoint, inputs)
    try:  # the run's lease (a checkpointed run) is held until here, renewed in the background
        return await _run_resolved(crew, inputs, checkpoint, on_chunk=on_chunk, plan_hook=plan_hook,
                                   executor=executor, boundary=boundary, from_checkpoint=from_checkpoint)
    finally:
        checkpoint.release()


async def _run_resolved(
    crew: CrewSpec,
    inputs: dict[str, Any],
    checkpoint: Any,
    *,
    on_chunk: Callable[[StreamChunk], None] | None,
    plan_hook: PlanHook | None,
    executor: Any,
    boundary: Any,
    from_checkpoint: Any,
) -> CrewOutput:
    inputs = checkpoint.inputs if checkpoint.inputs is not None else inputs
    # Inside a flow run, share the flow's run id so its events include the crew's
    # (not when checkpointing: the checkpoint store is keyed by the crew's own run).
    parent = current_run_id() if checkpoint.store is None else None
    run_id = checkpoint.run_id or parent or new_run_id()
    if checkpoint.store is None or checkpoint.lease is None:  # nothing to fence (crewgraph.checkpoint unloaded)
        return await _run_fenced(crew, inputs, checkpoint, run_id, on_chunk=on_chunk, plan_hook=plan_hook,
                                 executor=executor, boundary=boundary, from_checkpoint=from_checkpoint)
    from crewgraph.checkpoint.setup import fenced_run

    with fenced_run(checkpoint, run_id):  # a process that lost the lease writes nothing more
        return await _run_fenced(crew, inputs, checkpoint, run_id, on_chunk=on_chunk, plan_hook=plan_hook,
                                 executor=executor, boundary=boundary, from_checkpoint=from_checkpoint)


async def _run_fenced(
    crew: CrewSpec,
    inputs: dict[str, Any],
    checkpoint: Any,
    run_id: str,
    *,
    on_chunk: Callable[[StreamChunk], None] | None,
    plan_hook: PlanHook | None,
    executor: Any,
    boundary: Any,
    from_checkpoint: Any,
) -> CrewOutput:
    from crewgraph.runtime import Scheduler

    graph = compile_plan(crew, inputs)
    if plan_hook is not None:
        plan_hook(graph)
    from crewgraph.runtime.cassette import apply_cassette

    graph, default_llm, _tape = apply_cassette(graph, crew.llm, crew.cassette)  # record/replay, if on
    tasks_by_final = {p["final"]: crew.tasks[p["index"]] for p in graph.meta["tasks"]}
    plans_by_final = {p["final"]: p for p in graph.meta["tasks"]}
    skipped: set[str] = set()  # keys of conditional tasks whose condition said no
    state = _run_state(crew)
    from crewgraph.runner.human_pause import pause_state

    reviews = pause_state(crew, checkpoint.store, run_id)  # a provider that pauses for human_input
    if reviews is not None:
        from crewgraph.nodes.human_input import HUMAN_INPUT_KEY

        state.extras[HUMAN_INPUT_KEY] = reviews
    if on_chunk is not None:
        from crewgraph.streaming.chunks import chunk_sink

        state.stream = chunk_sink(crew, graph, inputs, on_chunk)
    memory = crew.get_memory()
    listener = _console(crew, run_id)
    log_file = _output_log(crew, run_id)
    start = time.perf_counter()

    def emit_crew(event_type: type[BaseEvent], **fields: Any) -> None:
        """Publish a crew-level event, built only when someone listens for it."""
        if not crewgraph_event_bus.has_handlers(event_type):
            return
        event = event_type(**fields)
        event.run_id = run_id
        if isinstance(event, CrewBaseEvent):
            event.crew = crew
        crewgraph_event_bus.emit(crew, event)

    from crewgraph.runner.task_callbacks import TaskCallbacks

    callbacks = TaskCallbacks(crew, checkpoint.store, run_id)
    writer = _crewai_checkpoints(crew, from_checkpoint, checkpoint, run_id)

    from crewgraph.hooks.points import InterceptionPoint, has_hooks
    from crewgraph.spec._execute_override import on_engine_path

    has_step_hooks = has_hooks(InterceptionPoint.POST_STEP, state.extras) and not on_engine_path()

    def on_node_finished(node: Node, output: Any) -> Any:
        if is_skipped(node, output):
            skipped.add(node.id.rsplit(".", 1)[0])
        task = tasks_by_final.get(node.id)
        if task is not None and isinstance(output, TaskOutput):
            if node.id.rsplit(".", 1)[0] in skipped:
                task.record_output(output)  # a skipped task: no output file, event or callbacks
                return None
            if has_step_hooks:
                return finish_after_hooks(node, task, output)
            return finish(node, task, output)
        return None

    def finish(node: Node, task: Any, output: TaskOutput) -> Any:
        from crewgraph.runner.task_stats import record_task_stats

        record_task_stats(task, output, plans_by_final.get(node.id), scheduler.records, scheduler._spawned_by)
        task_done(crew, task, output, inputs, run_id)
        if writer is not None:
            writer.write_checkpoint("task_completed", output.name or task.display_name())
        return callbacks.finished(node.id, task, output)  # off this thread, awaited

    async def finish_after_hooks(node: Node, task: Any, output: TaskOutput) -> None:
        from crewgraph.hooks.steps import post_step

        await post_step(state.extras, output, task=task, crew=crew)
        import inspect

        pending = finish(node, task, output)
        if inspect.isawaitable(pending):
            await pending

    def on_node_restored(node: Node, output: Any) -> Any:
        if is_skipped(node, output):
            skipped.add(node.id.rsplit(".", 1)[0])  # the condition said no in the first run
        task = tasks_by_final.get(node.id)
        if task is not None and isinstance(output, TaskOutput):
            if node.id.rsplit(".", 1)[0] in skipped:
                task.record_output(output)  # a skipped task: no output file or callbacks
                return None
            restore_output_file(task, output, inputs)
            return callbacks.restored(node.id, task, output)  # those that had not completed
        return None

    emit_crew(CrewKickoffStartedEvent, crew_name=crew.name, inputs=inputs)
    scheduler = Scheduler(
        graph,
        llm=default_llm,
        memory=memory,
        inputs=inputs,
        run_id=run_id,
        state=state,
        max_concurrency=crew.max_concurrency,
        checkpointer=checkpoint.store,
        # A restored condition fires the route it took then: it is not asked again.
        restored=checkpoint.restored,
        on_node_finished=on_node_finished,
        on_node_restored=on_node_restored,
        source=crew,
        executor=executor if executor is not None else crew.executor,
    )
    try:
        from crewgraph.graph.call_records import run_budget
        from crewgraph.runtime.llm_trace import LLMCallTracer
        from crewgraph.tools.mcp.sessions import run_sessions

        # each LLM call becomes a child node of the run graph; MCP sessions live for this run;
        # the calls the store keeps beside each node share one budget for the run
        with LLMCallTracer(scheduler, crew), run_budget():
            async with run_sessions():
                result = await scheduler.run()
        if reviews is not None and checkpoint.store is not None:
            from crewgraph.runner.human_pause import clear_pause, save_pause

            if result.paused:
                save_pause(checkpoint.store, run_id, result.paused, reviews)
            else:
                clear_pause(checkpoint.store, run_id, reviews)
    except BaseException as exc:
        failed = _failed_task(graph, scheduler)
        if failed is not None:
            task_name, role, in_agent = failed
            if in_agent:  # the agent's own work failed (not a guardrail or conversion after it)
                emit_crew(AgentExecutionErrorEvent, task_name=task_name, agent_role=role, error=str(exc))
            emit_crew(TaskFailedEvent, task_name=task_name, agent_role=role, error=str(exc), error_type=type(exc))
        emit_crew(CrewKickoffFailedEvent, crew_name=crew.name, error=str(exc))
        if writer is not None:
            writer.write_checkpoint("crew_kickoff_failed")
        await crewgraph_event_bus.adrain()
        raise
    finally:
        if memory is not None and hasattr(memory, "drain_writes"):
            memory.drain_writes()
        if listener is not None:
            listener.close()
        if log_file is not None:
            log_file.close()
        if checkpoint.store is not None and hasattr(checkpoint.store, "close"):
            checkpoint.store.close()
    _mark_skipped(scheduler, skipped)
    output = _crew_output(graph, result)
    _remember_tool_failures(crew, output, inputs)
    if result.paused:  # waiting for a person's review: the crew has not finished
        from crewgraph.runner.human_pause import paused_output

        crew.usage_metrics = output.token_usage
        crew._last_run = result
        await crewgraph_event_bus.adrain()
        return paused_output(crew, output, result.paused)
    for cb in crew.after_kickoff_callbacks:
        changed = cb(output)
        if changed is not None:
            output = changed
    output = await boundary.output(output)
    crew.usage_metrics = output.token_usage
    crew._last_run = result
    crew._last_inputs = dict(inputs)
    emit_crew(
        CrewKickoffCompletedEvent,
        crew_name=crew.name,
        output=output.raw,
        total_tokens=output.token_usage.total_tokens,
        duration_ms=(time.perf_counter() - start) * 1000,
    )
    if writer is not None:
        writer.write_checkpoint("crew_kickoff_completed")
    await crewgraph_event_bus.adrain()  # sync handlers run off the loop: let them finish
    return output


@dataclass
class _Unchecked:
    """A run without checkpoints: the fields of a ResolvedCheckpoint the run path reads, all
    empty. Its own small type so a run that checkpoints nothing never imports
    ``crewgraph.checkpoint`` (its store, leases and sqlite cost the first kickoff ~0.1 s)."""

    inputs: dict[str, Any]
    store: None = None
    run_id: None = None
    restored: dict[str, Any] = field(default_factory=dict)
    resumed: bool = False
    lease: None = None

    def release(self) -> None:
        """Nothing is held."""


def _checkpoint(crew: CrewSpec, from_checkpoint: Any, inputs: dict[str, Any]) -> Any:
    """The store, run id, restored outputs and inputs of this run (nothing when not checkpointing)."""
    setup = sys.modules.get("crewgraph.checkpoint.setup")  # not loaded: no ResolvedCheckpoint exists
    if setup is not None and isinstance(from_checkpoint, setup.ResolvedCheckpoint):
        return from_checkpoint  # decided by the caller (Crew.replay)
    if not crew.checkpoint and from_checkpoint is None:
        return _Unchecked(inputs=inputs)
    from crewgraph.runner.resume import resolve_crew_checkpoint

    return resolve_crew_checkpoint(crew, from_checkpoint, inputs=inputs)


def _crewai_checkpoints(crew: CrewSpec, from_checkpoint: Any, checkpoint: Any, run_id: str) -> Any:
    """The writer of CrewAI's checkpoint records, when the run has CrewAI's CheckpointConfig."""
    if checkpoint.store is None:
        return None
    from crewgraph.state.writer import writer_for

    return writer_for(crew, run_id, getattr(checkpoint.store, "path", None), from_checkpoint, crew.checkpoint)


def _run_state(crew: CrewSpec) -> RunState:
    state = RunState()
    limiters: dict[str, Any] = {}
    agents = [*crew.agents, *([crew.manager_agent] if crew.manager_agent is not None else [])]
    if crew.max_rpm or any(a.max_rpm for a in agents):
        from crewgraph.llm.rate_limit import RPMLimiter

        if crew.max_rpm:
            limiters["crew"] = RPMLimiter(crew.max_rpm)
        for agent in agents:
            if agent.max_rpm:
                limiters[f"agent:{agent.id}"] = RPMLimiter(agent.max_rpm)
    state.limiters.update(limiters)
    if crew.input_provider is not None:
        state.extras["input_provider"] = crew.input_provider
    if crew._execution_hooks:
        from crewgraph.hooks._registry import RUN_HOOKS_KEY

        state.extras[RUN_HOOKS_KEY] = crew._execution_hooks
    state.extras["crew_name"] = crew.name
    return state


def _output_log(crew: CrewSpec, run_id: str) -> Any:
    """The ``output_log_file`` listener for this run, or None."""
    from crewgraph.events.output_log import OutputLogListener, log_path

    path = log_path(crew.output_log_file)
    if path is None:
        return None
    names = {t.name or t.display_name(): t.description for t in crew.tasks}
    return OutputLogListener(path, run_id, names)


def _console(crew: CrewSpec, run_id: str) -> Any:
    if not (crew.verbose or any(a.verbose for a in crew.agents)):
        return None
    from crewgraph.events.console import ConsoleListener

    return ConsoleListener(run_id=run_id)


def _mark_skipped(scheduler: Any, skipped: set[str]) -> None:
    """The executed graph shows a skipped conditional task's nodes as ``skipped``."""
    for key in skipped:
        for nid, rec in scheduler.records.items():
            if nid.startswith(key + ".") and rec.status == "pending":
                rec.status = "skipped"


def _crew_output(graph: Any, result: Any) -> CrewOutput:
    tasks_output: list[TaskOutput] = []
    for plan in graph.meta["tasks"]:
        out = result.outputs.get(plan["final"])
        if isinstance(out, TaskOutput):
            tasks_output.append(out)
    final = result.outputs.get(graph.meta["final"])
    last = final if isinstance(final, TaskOutput) else (tasks_output[-1] if tasks_output else None)
    return CrewOutput(
        raw=last.raw if last else "",
        pydantic=last.pydantic if last else None,
        json_dict=last.json_dict if last else None,
        tasks_output=tasks_output,
        token_usage=result.usage,
        run_id=result.run_id,
        graph=result.run_graph,
    )


def _remember_tool_failures(crew: Any, output: CrewOutput, inputs: dict[str, Any]) -> None:
    """Each agent's ``last_tool_failures``: the failures of the last task it did in this run (a
    task output names its agent by the role as the run filled it in)."""
    for agent in [*crew.agents, *([crew.manager_agent] if getattr(crew, "manager_agent", None) else [])]:
        role = interpolate(agent.role, inputs)
        done = [t for t in output.tasks_output if t.agent == role]
        failures = getattr(agent, "_tool_failures", None)
        if done and isinstance(failures, list):
            failures[:] = list(done[-1].tool_failures)


def _failed_task(graph: Any, scheduler: Any) -> tuple[str, str | None, bool] | None:
    """The failed task's name, its agent's role (both as the run filled them in), and whether its
    agent step was what failed."""
    for plan in graph.meta.get("tasks", []):
        for nid, rec in scheduler.records.items():
            if rec.status == "failed" and nid.startswith(plan["key"] + "."):
                agent_node = plan.get("agent")
                role = getattr(graph.node(agent_node), "agent_role", None) if agent_node in graph else None
                inputs = scheduler.inputs
                return (interpolate(str(plan["name"]), inputs),
                        interpolate(role, inputs) if isinstance(role, str) else None, nid == agent_node)
    return None
