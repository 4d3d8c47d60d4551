"""The execution traces agent evaluations read, collected from crewgraph's event bus.

One trace per (agent, task): its tool uses (tool, args, result, success, error_type,
timestamp), its model calls (messages, response, start/end time, total tokens), start and
end time and the final output, under ``"<agent id>_<task id>"`` as CrewAI keys them.

crewgraph's events name the agent by role and the task by name, and carry the run's source
(the crew): the agent and task objects are found there, so the trace keys are the real ids
(an event that carries ``agent``/``task`` objects is used as it is). Tool and model events
are filed under the trace of the agent step (graph node) that emitted them, so tasks running
in parallel keep separate traces; an event of no known step goes to the current trace, as in
CrewAI.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from crewgraph.events.agent_events import AgentExecutionCompletedEvent, AgentExecutionStartedEvent
from crewgraph.events.base_event_listener import BaseEventListener
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.crew_events import CrewKickoffStartedEvent
from crewgraph.events.llm_events import LLMCallCompletedEvent, LLMCallStartedEvent
from crewgraph.events.tool_events import ToolUsageErrorEvent, ToolUsageFinishedEvent

__all__ = ["EvaluationTraceCallback", "create_evaluation_callbacks", "find_agent_and_task"]


def _keep(callback: EvaluationTraceCallback, bus: CrewGraphEventsBus, event_type: type[Any]) -> Any:
    """``bus.on(event_type)``, remembering the handler so ``setup_listeners`` can replace it."""

    def register(handler: Any) -> Any:
        bus.register_handler(event_type, handler)
        callback._registered.append((event_type, handler))
        return handler

    return register


def find_agent_and_task(source: Any, event: Any) -> tuple[Any, Any]:
    """The agent and task objects an agent/task event is about (None where they can't be found)."""
    agent, task = getattr(event, "agent", None), getattr(event, "task", None)
    if agent is not None and not isinstance(agent, str) and task is not None and not isinstance(task, str):
        return agent, task
    tasks = list(getattr(source, "tasks", None) or [])
    role, name = getattr(event, "agent_role", None), getattr(event, "task_name", None)
    mine = [t for t in tasks if getattr(getattr(t, "agent", None), "role", None) == role] or tasks
    named = [t for t in mine if name is not None and name in _names(t)]
    found = named[0] if named else (mine[0] if len(mine) == 1 else None)
    if found is None:
        return None, None
    return found.agent, found


def _names(task: Any) -> set[str]:
    names = {str(task.name)} if getattr(task, "name", None) else set()
    display = getattr(task, "display_name", None)
    if callable(display):
        names.add(display())
    return names


class EvaluationTraceCallback(BaseEventListener):
    """Collects execution traces for agent evaluation (one instance per process, as CrewAI's)."""

    _instance: EvaluationTraceCallback | None = None
    _initialized: bool = False

    def __new__(cls) -> EvaluationTraceCallback:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self) -> None:
        if self._initialized:
            return
        self.traces: dict[str, Any] = {}
        self.current_agent_id: str | None = None
        self.current_task_id: str | None = None
        self.current_llm_call: dict[str, Any] = {}
        self._by_node: dict[str, tuple[str, str]] = {}
        self._lock = threading.RLock()
        self._registered: list[tuple[type[Any], Any]] = []
        self._run_inputs: dict[str, dict[str, Any]] = {}
        self._initialized = True

    def setup_listeners(self, event_bus: CrewGraphEventsBus) -> None:
        """Register the trace handlers on ``event_bus``; calling it again replaces them (so they
        are there once, also after a ``scoped_handlers()`` block dropped them)."""
        for event_type, handler in self._registered:
            event_bus.off(event_type, handler)
        self._registered = []

        @_keep(self, event_bus, CrewKickoffStartedEvent)
        def _kickoff(source: Any, event: CrewKickoffStartedEvent) -> None:
            if event.run_id:
                self._run_inputs[event.run_id] = dict(event.inputs or {})

        @_keep(self, event_bus, AgentExecutionStartedEvent)
        def _started(source: Any, event: AgentExecutionStartedEvent) -> None:
            agent, task = find_agent_and_task(source, event)
            if agent is not None:
                self.on_agent_start(agent, task)
                trace = self.get_trace(str(agent.id), str(task.id))
                if trace is not None:  # the run's inputs, so judges read the task as the agent did
                    trace["inputs"] = self._run_inputs.get(event.run_id or "", {})
                if event.node_id:
                    self._by_node[event.node_id] = (str(agent.id), str(task.id))

        @_keep(self, event_bus, AgentExecutionCompletedEvent)
        def _completed(source: Any, event: AgentExecutionCompletedEvent) -> None:
            agent, task = find_agent_and_task(source, event)
            if agent is not None:
                self.on_agent_finish(agent, task, event.output)

        @_keep(self, event_bus, ToolUsageFinishedEvent)
        def _tool_done(source: Any, event: ToolUsageFinishedEvent) -> None:
            with self._at(event.node_id):
                if event.failure is None:
                    self.on_tool_use(event.tool_name, event.tool_args, event.output, success=True)
                else:
                    kind = _failure_kind(event.failure)
                    self.on_tool_use(event.tool_name, event.tool_args, str(getattr(event.failure, "message", None)
                                                                            or event.output), success=False, error_type=kind)

        @_keep(self, event_bus, ToolUsageErrorEvent)
        def _tool_error(source: Any, event: ToolUsageErrorEvent) -> None:
            with self._at(event.node_id):
                self.on_tool_use(event.tool_name, event.tool_args, event.error, success=False, error_type="usage_error")

        @_keep(self, event_bus, LLMCallStartedEvent)
        def _llm_started(source: Any, event: LLMCallStartedEvent) -> None:
            with self._at(event.node_id):
                self.on_llm_call_start(event.messages, [{"name": t} for t in event.tools or ()])

        @_keep(self, event_bus, LLMCallCompletedEvent)
        def _llm_completed(source: Any, event: LLMCallCompletedEvent) -> None:
            with self._at(event.node_id):
                self.on_llm_call_end(None, _Reply(event.response, event.total_tokens))

    # CrewAI's hooks, callable directly too --------------------------------------------
    def on_agent_start(self, agent: Any, task: Any) -> None:
        """Open the trace of ``agent`` working on ``task`` (and make it the current one)."""
        with self._lock:
            self.current_agent_id, self.current_task_id = str(agent.id), str(task.id)
            self.traces[f"{agent.id}_{task.id}"] = {
                "agent_id": str(agent.id), "task_id": str(task.id), "tool_uses": [], "llm_calls": [],
                "start_time": datetime.now(), "final_output": None,
            }

    def on_agent_finish(self, agent: Any, task: Any, output: Any) -> None:
        """Close the trace with the agent's final output."""
        with self._lock:
            trace = self.traces.get(f"{agent.id}_{task.id}")
            if trace is not None:
                trace["final_output"] = output
                trace["end_time"] = datetime.now()
            self.current_agent_id = self.current_task_id = None

    def on_lite_agent_start(self, agent_info: dict[str, Any]) -> None:
        """Open the trace of an agent kicked off on its own (task id ``"lite_task"``)."""
        with self._lock:
            self.current_agent_id, self.current_task_id = str(agent_info["id"]), "lite_task"
            self.traces[f"{agent_info['id']}_lite_task"] = {
                "agent_id": str(agent_info["id"]), "task_id": "lite_task", "tool_uses": [], "llm_calls": [],
                "start_time": datetime.now(), "final_output": None,
            }

    def on_lite_agent_finish(self, output: Any) -> None:
        """Close the current lone agent's trace with its output."""
        with self._lock:
            trace = self.traces.get(f"{self.current_agent_id}_lite_task")
            if trace is not None:
                trace["final_output"] = output
                trace["end_time"] = datetime.now()
            self.current_agent_id = self.current_task_id = None

    def on_tool_use(self, tool_name: str, tool_args: dict[str, Any] | str, result: Any, success: bool = True,
                    error_type: str | None = None) -> None:
        """Record one tool use in the current trace."""
        trace = self._current()
        if trace is None:
            return
        use: dict[str, Any] = {"tool": tool_name, "args": tool_args, "result": result, "success": success,
                               "timestamp": datetime.now()}
        if not success and error_type:
            use["error"], use["error_type"] = True, error_type
        trace["tool_uses"].append(use)

    def on_llm_call_start(self, messages: str | Sequence[dict[str, Any]] | None,
                          tools: Sequence[dict[str, Any]] | None = None) -> None:
        """Note a model call's start (its end records it)."""
        if self._current() is None:
            return
        self.current_llm_call = {"messages": messages, "tools": tools, "start_time": datetime.now(),
                                 "response": None, "end_time": None}

    def on_llm_call_end(self, messages: str | list[dict[str, Any]] | None, response: Any) -> None:
        """Record a finished model call (response, times, total tokens) in the current trace."""
        trace = self._current()
        if trace is None:
            return
        now = datetime.now()
        started = self.current_llm_call.get("start_time") or now
        usage = getattr(response, "usage", None)
        tokens = int(getattr(usage, "total_tokens", 0) or 0) if usage is not None else 0
        text = response.text if isinstance(response, _Reply) else response
        trace["llm_calls"].append({"messages": messages if messages is not None else self.current_llm_call.get("messages"),
                                   "response": text, "start_time": started, "end_time": now, "total_tokens": tokens})
        self.current_llm_call = {}

    def get_trace(self, agent_id: str, task_id: str) -> dict[str, Any] | None:
        """The trace of agent ``agent_id`` on task ``task_id``, or None."""
        return self.traces.get(f"{agent_id}_{task_id}")

    # ---------------------------------------------------------------------------
    def _current(self) -> dict[str, Any] | None:
        if not self.current_agent_id or not self.current_task_id:
            return None
        trace: dict[str, Any] | None = self.traces.get(f"{self.current_agent_id}_{self.current_task_id}")
        return trace

    def _at(self, node_id: str | None) -> _AtNode:
        return _AtNode(self, self._by_node.get(node_id or ""))


class _AtNode:
    """Make the trace of an event's agent step current while the event is recorded."""

    def __init__(self, callback: EvaluationTraceCallback, key: tuple[str, str] | None) -> None:
        self.callback, self.key = callback, key
        self.saved: tuple[str | None, str | None] = (None, None)

    def __enter__(self) -> None:
        self.callback._lock.acquire()
        if self.key is not None:
            self.saved = (self.callback.current_agent_id, self.callback.current_task_id)
            self.callback.current_agent_id, self.callback.current_task_id = self.key

    def __exit__(self, *exc: object) -> None:
        if self.key is not None:
            self.callback.current_agent_id, self.callback.current_task_id = self.saved
        self.callback._lock.release()


class _Reply:
    """A completed model call as the trace reads it: its text and its token count."""

    def __init__(self, text: str | None, total_tokens: int) -> None:
        self.text = text or ""
        self.usage = type("Usage", (), {"total_tokens": total_tokens})()


_FAILURE_KINDS = {"invalid_input": "validation_error", "unknown_tool": "selection_error",
                  "usage_limit": "usage_error", "repeated_call": "usage_error"}
"""A :class:`ToolFailureReason` as CrewAI's trace names the error (the rest: ``execution_error``)."""


def _failure_kind(failure: Any) -> str:
    reason = getattr(failure, "reason", None)
    return _FAILURE_KINDS.get(str(getattr(reason, "value", reason)), "execution_error")


def create_evaluation_callbacks() -> EvaluationTraceCallback:
    """The process's trace collector, listening on crewgraph's event bus."""
    from crewgraph.events.bus import crewgraph_event_bus

    callback = EvaluationTraceCallback()
    callback.setup_listeners(crewgraph_event_bus)
    return callback
