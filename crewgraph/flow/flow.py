"""Flow: event-driven workflows of methods, compiled to the same graph as crews.

``class MyFlow(Flow[StateType])`` with ``@start()``, ``@listen(...)`` and
``@router(...)`` methods is read and validated when the class is defined; an
instance compiles to an ExecutionGraph of ``flow_method``/``router``/``join``
nodes (holding the instance's bound methods) and ``kickoff`` runs it on the
one scheduler. This module is the seed's import path
(``crewgraph.flow.flow``): it also re-exports the decorators and ``and_``/``or_``.
"""

from __future__ import annotations

import functools
import logging
import threading
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from crewgraph._internal.sync import run_sync
from crewgraph.flow._memory import FlowMemoryMixin
from crewgraph.flow._spec import build_spec, flow_methods
from crewgraph.flow.conditions import FlowCondition, and_, or_
from crewgraph.flow.conversational.mixin import ConversationalMixin
from crewgraph.flow.declarative._api import DeclarativeMixin
from crewgraph.flow.decorators import PERSIST, listen, router, start
from crewgraph.flow.state import (
    FlowState,
    apply_inputs,
    new_state,
    state_from_dict,
    state_id,
    state_type_from_bases,
)

if TYPE_CHECKING:
    from crewgraph.compiler.flow_compiler import FlowSpec
    from crewgraph.flow.async_feedback.types import PendingFeedbackContext
    from crewgraph.flow.human_feedback import HumanFeedbackResult
    from crewgraph.flow.persistence import FlowPersistence
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.graph.run_record import RunGraph
    from crewgraph.outputs import UsageMetrics

__all__ = ["Flow", "FlowCondition", "FlowState", "and_", "listen", "or_", "router", "start"]

T = TypeVar("T", bound="dict[str, Any] | BaseModel")


class _Unset:
    def __repr__(self) -> str:
        return "<class default>"


_UNSET: Any = _Unset()


class _hybrid:
    """A method callable on the class or an instance: ``fn(cls, instance_or_None, ...)``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    def __get__(self, obj: Any, owner: type) -> Callable[..., Any]:
        return functools.partial(self.fn, owner, obj)


class Flow(ConversationalMixin, DeclarativeMixin, FlowMemoryMixin, Generic[T]):
    """A workflow of decorated methods sharing a ``state``.

    Class attributes: ``initial_state`` (a model class or instance, or a dict;
    else the ``T`` of ``Flow[T]``, else a dict), ``name``, ``max_method_calls``
    (loop guard: how often any one method may run per kickoff, ``None`` for no bound),
    ``max_concurrency`` (methods running at once), ``memory``.
    """

    initial_state: Any = None
    name: str | None = None
    max_method_calls: int | None = 100
    max_concurrency: int = 32
    checkpoint: Any = False
    """True: persist like ``@persist`` on the class (default SQLite store): state saved and
    completions journaled after each method, so a killed run resumes where it stopped.
    CrewAI's ``crewgraph.state.CheckpointConfig(location=...)``: the same, in its store."""
    tracing: bool | None = None
    """OpenTelemetry spans of every kickoff (None: ``$CREWGRAPH_TRACING``); needs crewgraph[otel]."""
    executor: Any = None
    """Where method calls run: None (this process) or ``crewgraph.distributed.RayExecutor(...)``."""
    input_provider: Any = None
    """Who answers ``self.ask(...)``: an InputProvider (``request_input(message, flow,
    metadata=None)``), a function ``fn(message) -> str``, ``"console"`` or ``"persisted"``
    (pause the run until ``Flow.resume(run_id, answer)``); None: ``flow_config.input_provider``,
    else the console."""

    _spec: ClassVar[FlowSpec | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._spec = None
        if not flow_methods(cls):
            return  # a base class without methods yet: checked when it is compiled
        from crewgraph.compiler.flow_compiler import FlowCompileWarning, validate_flow

        spec = build_spec(cls, cls.name or cls.__name__)
        if not any(m.start for m in spec.methods):
            # No @start() at all: a base class whose subclasses add the entry points (and
            # maybe the routers its listeners wait for). It is checked, with the same
            # errors, when it is compiled or kicked off itself.
            return
        for problem in validate_flow(spec):
            warnings.warn(f"flow {spec.name!r}: {problem}", FlowCompileWarning, stacklevel=2)
        cls._spec = spec

    def __init__(
        self,
        persistence: FlowPersistence | None = None,
        memory: Any = _UNSET,
        tracing: bool | None = None,
        executor: Any = None,
        checkpoint: Any = None,
        **kwargs: Any,
    ) -> None:
        """``kwargs`` are initial state values, applied at every kickoff before its inputs.
        ``memory``: a Memory/MemoryScope/MemorySlice, or None to turn memory off (default:
        a ``Memory()`` created when first used). ``tracing``: OpenTelemetry spans (None: the
        class's ``tracing``, else ``$CREWGRAPH_TRACING``). ``executor``: where the methods run
        (``crewgraph.distributed.RayExecutor(...)`` for a Ray cluster; None: here)."""
        self._persistence = persistence
        self._restore_run: str | None = None
        from crewgraph.flow._checkpoint import apply_checkpoint

        apply_checkpoint(self, checkpoint if checkpoint is not None else type(self).checkpoint)
        if executor is not None:
            if not callable(getattr(executor, "prepare", None)):
                raise TypeError(
                    "Flow(executor=...) must be a step executor such as "
                    f"crewgraph.distributed.RayExecutor(...), got {type(executor).__name__}"
                )
            self.executor = executor
        if tracing is not None:
            self.tracing = tracing
        if memory is not _UNSET:
            self.memory = memory
        self._init_values = dict(kwargs)
        self._state: Any = new_state(self._state_template(), dict(kwargs))
        # What __init__ (including a subclass's, after super().__init__()) left in the state:
        # captured at the first kickoff, the template of every later one.
        self._initial: Any = None
        self._method_outputs: list[Any] = []
        self._graph: ExecutionGraph | None = None
        self._run_id: str | None = None
        self._run_graph: RunGraph | None = None
        self._usage: Any = None
        self._trigger_payload: Any = None
        self.human_feedback_history: list[HumanFeedbackResult] = []
        """Every ``@human_feedback`` result of this instance's kickoffs, in order."""
        self._input_history: list[dict[str, Any]] = []
        self._input_lock = threading.Lock()
        self._pending_context: PendingFeedbackContext | None = None
        self._pending_store: FlowPersistence | None = None
        _announce(self, "created")

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> T:
        """The current state (a fresh one per kickoff; the last kickoff's afterwards)."""
        return self._state

    @property
    def flow_id(self) -> str:
        """The state's id (what ``@persist`` saves it under)."""
        return state_id(self._state)

    @property
    def flow_name(self) -> str:
        name = self.name  # a method called "name" would shadow the attribute
        return name if isinstance(name, str) and name else type(self).__name__

    @property
    def method_outputs(self) -> list[Any]:
        """Outputs of the methods of the last kickoff, in completion order (routers: labels)."""
        return list(self._method_outputs)

    @property
    def run_id(self) -> str | None:
        """Run id of the last kickoff (shared by the events of crews kicked off inside it)."""
        return self._run_id

    @property
    def run_graph(self) -> RunGraph | None:
        """The executed graph of the last successful kickoff (timings, statuses, per-node
        executions); ``run_graph.render("run.svg")`` draws it."""
        return self._run_graph

    @property
    def usage_metrics(self) -> UsageMetrics:
        """Tokens of every LLM call made during the last kickoff: the agents of crews its
        methods kicked off, memory analysis, and direct ``llm.call(...)`` in methods."""
        from crewgraph.outputs import UsageMetrics

        return self._usage.total() if self._usage is not None else UsageMetrics()

    @property
    def trigger_payload(self) -> Any:
        """The trigger data of the last kickoff (``inputs["crewai_trigger_payload"]``)."""
        return self._trigger_payload

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

    # ------------------------------------------------------------------ people
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

        return ask(self, message, timeout, metadata)

    def _is_persisted(self) -> bool:
        return bool(self.checkpoint) or getattr(type(self), PERSIST, None) is not None

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

        return from_pending(cls, flow_id, persistence, kwargs)

    @_hybrid
    def resume(
        cls: type[Flow[Any]],
        self: Flow[Any] | None,
        run_id: str = "",
        answer: Any = None,
        *,
        feedback: str | None = None,
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
        return run_sync(_resume(cls, self, run_id, answer, feedback, persistence, max_method_calls))

    @_hybrid
    async def resume_async(
        cls: type[Flow[Any]],
        self: Flow[Any] | None,
        run_id: str = "",
        answer: Any = None,
        *,
        feedback: str | None = None,
        persistence: FlowPersistence | None = None,
        max_method_calls: int | None = None,
    ) -> Any:
        """:meth:`resume` on the current event loop (what async web handlers call)."""
        return await _resume(cls, self, run_id, answer, feedback, persistence, max_method_calls)

    @_hybrid
    async def aresume(
        cls: type[Flow[Any]],
        self: Flow[Any] | None,
        run_id: str = "",
        answer: Any = None,
        *,
        feedback: str | None = None,
        persistence: FlowPersistence | None = None,
        max_method_calls: int | None = None,
    ) -> Any:
        """crewgraph's name for :meth:`resume_async`."""
        return await _resume(cls, self, run_id, answer, feedback, persistence, max_method_calls)

    def _state_template(self) -> Any:
        template = type(self).initial_state
        if template is None:
            template = state_type_from_bases(type(self))
        if isinstance(template, BaseModel | dict):
            return template
        if isinstance(template, type) and issubclass(template, BaseModel):
            return template
        return None  # dict, Any, a TypeVar...: unstructured state

    def _prepare_state(self, inputs: dict[str, Any], stores: dict[str, tuple[Any, bool]]) -> None:
        first = self._initial is None
        if first:
            import copy

            self._initial = copy.deepcopy(self._state)
        template = self._state_template() if not isinstance(self._initial, BaseModel | dict) else self._initial
        if "id" in inputs and stores:
            searched = list(dict.fromkeys(store for store, _ in stores.values()))
            for store in searched:
                saved = store.load_state(str(inputs["id"]))
                if saved is not None:
                    self._state = apply_inputs(state_from_dict(template, saved), inputs)
                    return
            # As CrewAI: not an error (the id may be new on purpose), but never silent --
            # a mistyped id would otherwise quietly restart a long process from scratch.
            # (A conversational turn's first one opens its session: nothing to warn about.)
            log = logging.getLogger("crewgraph.flow")
            (log.debug if self.__dict__.get("_fresh_run") else log.warning)(
                "flow %r: no saved state with id %r in %s; starting a fresh state with that id",
                self.flow_name,
                inputs["id"],
                ", ".join(map(repr, searched)),
            )
        if first:
            # The state __init__ built (and its id) is the first kickoff's state.
            self._state = apply_inputs(self._state, inputs)
            return
        self._state = new_state(template, {**self._init_values, **inputs})

    def _persistence_plan(self) -> dict[str, tuple[Any, bool]]:
        """Store per method name ('' = every method) from the ``@persist`` markers."""
        markers = {"": getattr(type(self), PERSIST, None)}
        if markers[""] is None and self.checkpoint:
            markers[""] = (None, False)  # checkpoint=True: @persist with the default store
        markers.update({n: getattr(fn, PERSIST, None) for n, fn in flow_methods(type(self)).items()})
        if not any(m is not None for m in markers.values()):
            return {}
        from crewgraph.flow.persistence import resolve

        plan: dict[str, tuple[Any, bool]] = {}
        for key, marker in markers.items():
            found = resolve(marker, self._persistence)
            if found is not None:
                plan[key] = found
        return plan

    # ------------------------------------------------------------------ plan
    def compile(self) -> ExecutionGraph:
        """The flow's plan (validated; built once per instance, bound to its methods)."""
        if self._graph is None:
            from crewgraph.compiler.flow_compiler import compile_flow

            spec = type(self)._spec or build_spec(type(self), self.flow_name)
            self._graph = compile_flow(spec, bind=lambda m: types.MethodType(m.fn, self))
        return self._graph

    def to_dot(self, **options: Any) -> str:
        """Graphviz DOT text of the flow (routers as diamonds, labels on route edges)."""
        return self.compile().to_dot(**options)

    def to_mermaid(self, **options: Any) -> str:
        """Mermaid flowchart text of the flow (routers as rhombi, labels on route edges)."""
        return self.compile().to_mermaid(**options)

    def plot(
        self, filename: str | Path = "flow.svg", format: str | None = None, show: bool = False, **options: Any
    ) -> Path:
        """Render the flow with Graphviz to ``filename``: ``.html`` writes an interactive,
        self-contained page (pan, zoom, node details on click; no CDN); svg, png, pdf...
        from the suffix otherwise (``.svg`` when there is none). ``show=True`` opens the
        result in the browser. Returns the written path."""
        graph = self.compile()
        _announce(self, "plot")
        if (format or Path(filename).suffix.lstrip(".")).lower() == "html":
            from crewgraph.export import plan_to_json
            from crewgraph.export.html import render_html

            details = {n["id"]: n for n in plan_to_json(graph)["nodes"]}
            path = render_html(graph.to_dot(**options), details, filename, self.flow_name)
        else:
            path = graph.render(filename, format=format, **options)
        if show:
            import webbrowser

            webbrowser.open(path.resolve().as_uri())
        return path

    # ------------------------------------------------------------------ run
    def kickoff(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
        *,
        max_method_calls: Any = _UNSET,
    ) -> Any:
        """Run the flow and return the last method's output. ``inputs`` set state fields
        (``{"id": ...}`` restores a persisted state, as ``restore_from_state_id``);
        ``from_checkpoint=CheckpointConfig(restore_from=...)`` continues a checkpointed run.
        Blocks; see :meth:`kickoff_async`."""
        return run_sync(self.kickoff_async(inputs, input_files, from_checkpoint, restore_from_state_id,
                                           max_method_calls=max_method_calls))

    async def kickoff_async(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
        *,
        max_method_calls: Any = _UNSET,
    ) -> Any:
        """Run the flow on the current event loop."""
        from crewgraph.flow._run import kickoff_flow  # the engine loads on first kickoff

        if input_files:
            raise ValueError("Flow.kickoff(input_files=...) is not supported by crewgraph: put the files "
                             "(paths or crewgraph file inputs) in the state through inputs=")
        limit = self.max_method_calls if max_method_calls is _UNSET else max_method_calls
        if from_checkpoint is not None:
            from crewgraph.flow._checkpoint import restore_run

            self._restore_run = restore_run(self, from_checkpoint)
        if self._restore_run is not None:
            run_id, self._restore_run = self._restore_run, None
            if inputs:
                raise ValueError("a flow restored from a checkpoint resumes with its saved state; inputs are not accepted")
            return await _resume(type(self), self, run_id, None, None, self._persistence, limit)
        if restore_from_state_id is not None:
            if not self._is_persisted() and self._persistence is None:
                raise ValueError(
                    f"restore_from_state_id={restore_from_state_id!r} needs a persisted flow: put @persist on "
                    f"{type(self).__name__} or pass persistence= (there is nowhere to restore the state from)"
                )
            inputs = {**(inputs or {}), "id": restore_from_state_id}
        return await kickoff_flow(self, inputs, limit)

    async def akickoff(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
        *,
        max_method_calls: Any = _UNSET,
    ) -> Any:
        """CrewAI's name for :meth:`kickoff_async`."""
        return await self.kickoff_async(inputs, input_files, from_checkpoint, restore_from_state_id,
                                        max_method_calls=max_method_calls)

    @classmethod
    def from_checkpoint(cls, config: Any, *, definition: Any = None) -> Flow[Any]:
        """A flow bound to continue the checkpointed run ``config.restore_from`` names (a run
        id, or a location: the latest unfinished run of this class) on :meth:`kickoff`."""
        if definition is not None:
            raise ValueError("Flow.from_checkpoint(definition=...) is not supported; call it on the flow class")
        from crewgraph.flow._checkpoint import restore_run

        flow = cls()
        flow._restore_run = restore_run(flow, config)
        return flow

    @classmethod
    def fork(cls, config: Any, branch: str | None = None, *, definition: Any = None) -> Flow[Any]:
        """Copy the run ``config.restore_from`` names under a new run id (label ``branch``) and
        return a flow bound to continue the copy; the original run stays as it was."""
        if definition is not None:
            raise ValueError("Flow.fork(definition=...) is not supported; call it on the flow class")
        from crewgraph.flow._checkpoint import fork_run, restore_run

        flow = cls()
        run_id = restore_run(flow, config)
        assert flow._persistence is not None
        flow._restore_run = fork_run(flow._persistence, run_id, branch)  # type: ignore[arg-type]
        return flow

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.flow_name!r}, state_id={self.flow_id!r})"


async def _resume(
    cls: type[Flow[Any]], flow: Flow[Any] | None, run_id: str, answer: Any, feedback: str | None,
    persistence: FlowPersistence | None, limit: int | None,
) -> Any:
    """Both resume forms: CrewAI's (a flow from ``from_pending``: the argument is the
    feedback) and crewgraph's (a run id and its answer)."""
    if flow is not None and flow._pending_context is not None:
        if answer is not None:
            raise TypeError("flow.resume(feedback) takes one argument: this flow was loaded with from_pending")
        from crewgraph.flow._feedback import resume_feedback

        return await resume_feedback(flow, feedback if feedback is not None else run_id)
    if feedback is not None or not run_id:
        raise ValueError(
            "nothing to resume: give the run id (Flow.resume(run_id, answer)), or load a flow paused "
            "for feedback with MyFlow.from_pending(flow_id) and call flow.resume(feedback)"
        )
    from crewgraph.flow._resume import resume_run

    return await resume_run(flow, cls, run_id, answer, persistence, limit)


def _announce(flow: Flow[Any], kind: str) -> None:
    """Publish ``FlowCreatedEvent`` / ``FlowPlotEvent`` for ``flow`` (built only for a listener)."""
    from crewgraph.events import flow_events
    from crewgraph.events.bus import crewgraph_event_bus

    event_type = flow_events.FlowCreatedEvent if kind == "created" else flow_events.FlowPlotEvent
    if crewgraph_event_bus.has_handlers(event_type):
        crewgraph_event_bus.emit(flow, event_type(flow_name=flow.flow_name))
