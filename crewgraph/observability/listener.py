"""OpenTelemetry spans for one run, built from the run's events on the event bus.

The tree: crew (or flow) run -> task -> node (agent step ``invoke_agent``, tool
``execute_tool``, guardrail, memory, flow method...) -> LLM call (``chat``). A
tool call the agent made is a child of that agent step. Spans carry the events'
own timestamps, and parents are found from run and node ids, not from the thread
a handler happens to run on, so parallel tasks, worker threads and async tasks
all land under the right parent. The run's root span is a child of whatever span
was current where the run was kicked off (a user's own span, a web request...).

Nothing reaches into the scheduler: this is an event-bus listener, registered for
one run id while that run lasts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from crewgraph.events.agent_events import AgentExecutionStartedEvent
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.crew_events import (
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
    TaskCompletedEvent,
    TaskFailedEvent,
    TaskStartedEvent,
)
from crewgraph.events.flow_events import FlowFinishedEvent, FlowPausedEvent, FlowStartedEvent
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallStartedEvent,
)
from crewgraph.events.node_events import (
    NodeFailedEvent,
    NodeFinishedEvent,
    NodeRetriedEvent,
    NodeStartedEvent,
)
from crewgraph.events.tool_events import (
    ToolUsageErrorEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
)
from crewgraph.observability import _spans
from crewgraph.observability.settings import content_capture_on, get_tracer

__all__ = ["TracingListener"]

_FLOW_KINDS = frozenset({"flow_method", "router", "join", "flow_pause", "human_feedback"})


class TracingListener:
    """Turns one run's events into spans; ``close()`` ends what is still open and unregisters."""

    def __init__(self, source: Any, *, bus: CrewGraphEventsBus | None = None) -> None:
        tracer = get_tracer()  # first: a clear error naming crewgraph[otel] when the API is missing
        from opentelemetry import context as otel_context
        from opentelemetry import trace

        from crewgraph.events.bus import crewgraph_event_bus

        self.source = source
        self.run_id: str | None = None  # adopted from the source's started event
        self._silent = False  # another listener already traces this run id
        self.bus = bus or crewgraph_event_bus
        self._trace = trace
        self._tracer = tracer
        self._outer = otel_context.get_current()  # the caller's span, if any, parents the run
        self._content = content_capture_on()
        self._lock = threading.Lock()
        self._roots: list[Any] = []  # open crew/flow spans, innermost last
        self._tasks: dict[str, Any] = {}  # task key (node id prefix) -> span
        self._task_keys: dict[str, str] = {}  # task name -> task key
        self._task_crew: dict[str, Any] = {}  # task key -> the crew span it belongs to
        self._nodes: dict[str, Any] = {}  # node id -> open span
        self._llm: dict[str, list[Any]] = {}  # node id -> open LLM call spans
        self._facts: dict[int, dict[str, Any]] = {}  # id(span) -> the attributes it started with
        self._handlers: list[tuple[type[BaseEvent], Callable[[Any, BaseEvent], None]]] = []
        for event_type, method in self._routes().items():
            handler = self._filtered(method)
            self._handlers.append((event_type, handler))
            self.bus.register_handler(event_type, handler)

    def _routes(self) -> dict[type[BaseEvent], Callable[[Any], None]]:
        return {
            CrewKickoffStartedEvent: self._crew_started,
            CrewKickoffCompletedEvent: self._crew_done,
            CrewKickoffFailedEvent: self._crew_done,
            FlowStartedEvent: self._flow_started,
            FlowFinishedEvent: self._flow_done,
            FlowPausedEvent: self._flow_done,
            TaskStartedEvent: self._task_started,
            TaskCompletedEvent: self._task_done,
            TaskFailedEvent: self._task_done,
            NodeStartedEvent: self._node_started,
            AgentExecutionStartedEvent: self._agent_started,
            NodeFinishedEvent: self._node_done,
            NodeFailedEvent: self._node_done,
            NodeRetriedEvent: self._node_retried,
            LLMCallStartedEvent: self._llm_started,
            LLMCallCompletedEvent: self._llm_done,
            LLMCallFailedEvent: self._llm_done,
            ToolUsageStartedEvent: self._tool_started,
            ToolUsageFinishedEvent: self._tool_finished,
            ToolUsageErrorEvent: self._tool_error,
        }

    def _filtered(self, method: Callable[[Any], None]) -> Callable[[Any, BaseEvent], None]:
        def handler(source: Any, event: BaseEvent) -> None:
            with self._lock:
                if self.run_id is None and not self._adopt(source, event):
                    return
                if not self._silent and event.run_id == self.run_id:
                    method(event)

        return handler

    def _adopt(self, source: Any, event: BaseEvent) -> bool:
        """Take the run id of the source's own started event (the first event of its run)."""
        if source is not self.source or event.run_id is None:
            return False
        if not isinstance(event, CrewKickoffStartedEvent | FlowStartedEvent):
            return False
        from crewgraph.observability.run_tracing import claim_run

        self.run_id = event.run_id
        self._silent = not claim_run(event.run_id)
        return True

    # ------------------------------------------------------------------ helpers
    def _start(self, name: str, parent: Any, event: BaseEvent, attributes: dict[str, Any]) -> Any:
        context = self._trace.set_span_in_context(parent) if parent is not None else self._outer
        attrs = {"crewgraph.run_id": self.run_id or "", **attributes}
        span = self._tracer.start_span(name, context=context, start_time=_spans.ns(event), attributes=attrs)
        self._facts[id(span)] = attributes  # spans without an SDK record nothing: keep our own
        return span

    def _fact(self, span: Any, key: str) -> Any:
        return self._facts.get(id(span), {}).get(key)

    def _end(self, span: Any, end_time: int | None = None) -> None:
        self._facts.pop(id(span), None)
        span.end(end_time=end_time)

    def _fail(self, span: Any, message: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        span.set_status(Status(StatusCode.ERROR, message))
        span.add_event("exception", {"exception.message": message})

    def _root(self) -> Any:
        return self._roots[-1] if self._roots else None

    def _parent_of_node(self, node_id: str) -> Any:
        parts = node_id.split(".")
        for cut in range(len(parts) - 1, 0, -1):  # the longest open node whose id prefixes this one
            span = self._nodes.get(".".join(parts[:cut]))
            if span is not None:
                return span
        return self._tasks.get(parts[0]) or self._root()

    def _task_span(self, key: str, event: BaseEvent) -> Any:
        """The span of the crew task whose nodes' ids start with ``key``, opened by its first node
        (named from its TaskStartedEvent when that comes); None outside of a crew."""
        span = self._tasks.get(key)
        if span is None:
            crew = self._root()
            if crew is None or self._fact(crew, "crewgraph.crew.name") is None:
                return None
            span = self._start(f"task {key}", crew, event, {"crewgraph.task.key": key})
            self._tasks[key] = span
            self._task_crew[key] = crew
        return span

    # ------------------------------------------------------------------ runs
    def _crew_started(self, e: CrewKickoffStartedEvent) -> None:
        parent = self._latest_flow_method() or self._root()
        span = self._start(f"crew {e.crew_name or 'crew'}", parent, e, {"crewgraph.crew.name": e.crew_name or ""})
        self._roots.append(span)

    def _latest_flow_method(self) -> Any:
        """A crew kicked off inside a flow method is that method's child (the newest open one)."""
        for span in reversed(list(self._nodes.values())):
            if self._fact(span, "crewgraph.node.kind") == "flow_method":
                return span
        return None

    def _crew_done(self, e: CrewKickoffCompletedEvent | CrewKickoffFailedEvent) -> None:
        for i in range(len(self._roots) - 1, -1, -1):
            span = self._roots[i]
            if self._fact(span, "crewgraph.crew.name") == (e.crew_name or ""):
                if isinstance(e, CrewKickoffFailedEvent):
                    self._fail(span, e.error)
                else:
                    span.set_attribute("gen_ai.usage.total_tokens", e.total_tokens)
                del self._roots[i]
                for key in [k for k, crew in self._task_crew.items() if crew is span]:
                    self._end_task(key, e)
                self._end(span, _spans.ns(e))
                return

    def _flow_started(self, e: FlowStartedEvent) -> None:
        self._roots.append(self._start(f"flow {e.flow_name}", None, e, {"crewgraph.flow.name": e.flow_name}))

    def _flow_done(self, e: FlowFinishedEvent | FlowPausedEvent) -> None:
        for i in range(len(self._roots) - 1, -1, -1):
            span = self._roots[i]
            if self._fact(span, "crewgraph.flow.name") == e.flow_name:
                if isinstance(e, FlowPausedEvent):
                    span.set_attribute("crewgraph.flow.paused", True)
                del self._roots[i]
                self._end(span, _spans.ns(e))
                return

    # ------------------------------------------------------------------ tasks and nodes
    def _task_started(self, e: TaskStartedEvent) -> None:
        node_span = self._nodes.get(e.node_id or "")
        if node_span is not None and e.agent_role:
            node_span.set_attribute("gen_ai.agent.name", e.agent_role)
            node_span.update_name(f"invoke_agent {e.agent_role}")
        name = e.task_name or ""
        key = (e.node_id or name).split(".")[0]
        span = self._task_span(key, e)
        if span is None or e.task_name in self._task_keys:
            return  # not in a crew, or a redo after a guardrail said no: the same task
        span.update_name(f"task {name}")
        span.set_attribute("crewgraph.task.name", name)
        if e.agent_role:
            span.set_attribute("gen_ai.agent.name", e.agent_role)
        self._task_keys[name] = key

    def _task_done(self, e: TaskCompletedEvent | TaskFailedEvent) -> None:
        key = self._task_keys.get(e.task_name or "")
        span = self._tasks.get(key) if key is not None else None
        if span is None or key is None:
            return
        if isinstance(e, TaskFailedEvent):
            self._fail(span, e.error)
        self._end_task(key, e)

    def _end_task(self, key: str, event: BaseEvent) -> None:
        span = self._tasks.pop(key, None)
        self._task_crew.pop(key, None)
        for name in [n for n, k in self._task_keys.items() if k == key]:
            del self._task_keys[name]
        if span is not None:
            self._end(span, _spans.ns(event))

    def _node_started(self, e: NodeStartedEvent) -> None:
        node_id = e.node_id or ""
        attrs: dict[str, Any] = {"crewgraph.node.id": node_id, "crewgraph.node.kind": e.node_kind or ""}
        op = _spans.operation(e.node_kind)
        if op:
            attrs["gen_ai.operation.name"] = op
        name = _spans.node_span_name(e.node_kind, e.label, node_id)
        parent = self._parent_of_node(node_id)
        if e.node_kind not in _FLOW_KINDS and "." in node_id and parent is self._root():
            parent = self._task_span(node_id.split(".")[0], e) or parent
        self._nodes[node_id] = self._start(name, parent, e, attrs)

    def _agent_started(self, e: AgentExecutionStartedEvent) -> None:
        """Every agent step, a guardrail's redo included, is named after its agent."""
        span = self._nodes.get(e.node_id or "")
        if span is not None and e.agent_role:
            span.set_attribute("gen_ai.agent.name", e.agent_role)
            span.update_name(f"invoke_agent {e.agent_role}")

    def _node_done(self, e: NodeFinishedEvent | NodeFailedEvent) -> None:
        span = self._nodes.pop(e.node_id or "", None)
        if span is None:
            return
        if isinstance(e, NodeFailedEvent):
            span.set_attribute("crewgraph.node.attempts", e.attempts)
            self._fail(span, e.error)
        else:
            span.set_attribute("gen_ai.usage.total_tokens", e.total_tokens)
            if e.from_checkpoint:
                span.set_attribute("crewgraph.node.restored", True)
        self._end(span, _spans.ns(e))

    def _node_retried(self, e: NodeRetriedEvent) -> None:
        span = self._nodes.get(e.node_id or "")
        if span is not None:
            attrs = {"crewgraph.retry.attempt": e.attempt, "crewgraph.retry.wait_seconds": e.wait_seconds,
                     "exception.message": e.error}
            span.add_event("retry", attrs, timestamp=_spans.ns(e))

    # ------------------------------------------------------------------ LLM and tool calls
    def _llm_started(self, e: LLMCallStartedEvent) -> None:
        node_id = e.node_id or ""
        parent = self._nodes.get(node_id) or self._parent_of_node(node_id)
        span = self._start(f"chat {e.model}", parent, e, _spans.llm_request_attributes(e, self._content))
        self._llm.setdefault(node_id, []).append(span)

    def _llm_done(self, e: LLMCallCompletedEvent | LLMCallFailedEvent) -> None:
        stack = self._llm.get(e.node_id or "")
        if not stack:
            return
        span = stack.pop()
        if isinstance(e, LLMCallFailedEvent):
            if e.status_code is not None:
                span.set_attribute("http.response.status_code", e.status_code)
            self._fail(span, e.error)
        else:
            for key, value in _spans.completion_attributes(e, self._content).items():
                span.set_attribute(key, value)
        self._end(span, _spans.ns(e))

    def _tool_started(self, e: ToolUsageStartedEvent) -> None:
        span = self._nodes.get(e.node_id or "")
        if span is None:
            return
        span.update_name(f"execute_tool {e.tool_name}")
        span.set_attribute("gen_ai.tool.name", e.tool_name)
        if e.agent_role:
            span.set_attribute("gen_ai.agent.name", e.agent_role)
        if self._content:
            span.set_attribute("gen_ai.tool.call.arguments", _spans.to_json(e.tool_args))

    def _tool_finished(self, e: ToolUsageFinishedEvent) -> None:
        span = self._nodes.get(e.node_id or "")
        if span is None:
            return
        span.set_attribute("crewgraph.tool.from_cache", e.from_cache)
        if self._content and e.output is not None:
            span.set_attribute("gen_ai.tool.call.result", _spans.to_json(e.output))
        if e.failure is not None:
            message = getattr(e.failure, "message", str(e.failure))
            span.set_attribute("crewgraph.tool.failed", True)
            self._fail(span, message)

    def _tool_error(self, e: ToolUsageErrorEvent) -> None:
        span = self._nodes.get(e.node_id or "")
        if span is not None:
            span.add_event("exception", {"exception.message": e.error}, timestamp=_spans.ns(e))

    # ------------------------------------------------------------------ end
    def close(self, error: BaseException | None = None) -> None:
        """Unregister, then end every span still open (marked failed when the run raised)."""
        for event_type, handler in self._handlers:
            self.bus.off(event_type, handler)
        self._handlers.clear()
        with self._lock:
            if self.run_id is not None and not self._silent:
                from crewgraph.observability.run_tracing import release_run

                release_run(self.run_id)
            open_spans = [s for stack in self._llm.values() for s in stack]
            open_spans += [*self._nodes.values(), *self._tasks.values(), *reversed(self._roots)]
            self._llm.clear()
            self._nodes.clear()
            self._tasks.clear()
            self._task_crew.clear()
            self._task_keys.clear()
            self._roots.clear()
            self._facts.clear()
            for span in open_spans:
                if error is not None:
                    self._fail(span, f"{type(error).__name__}: {error}")
                self._end(span)
