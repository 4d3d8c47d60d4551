"""Flow: event-driven workflows of methods, compiled to the same graph as crews.

``class MyFlow(Flow[StateType])`` with ``@start()``, ``@listen(...)`` and
``@router(...)`` methods is read and validated when the class is defined; an
instance compiles to an ExecutionGraph of ``flow_method``/``router``/``join``
nodes (holding the instance's bound methods) and ``kickoff`` runs it on the
one scheduler. This module is the facade: its settings, its constructor and
what a run leaves behind; the rest is in mixins, one job each --
:mod:`~crewgraph.flow._kickoff_api` (kickoff, checkpoints),
:mod:`~crewgraph.flow._people_api` (ask, human feedback, resume),
:mod:`~crewgraph.flow._state_api` (state, persistence),
:mod:`~crewgraph.flow._plan_api` (compile, plot) and the memory, declarative and
conversational mixins. It is also CrewAI's ``crewai.flow.flow`` path: it
re-exports the decorators and ``and_``/``or_``.
"""

from __future__ import annotations

import threading
import warnings
from abc import ABCMeta
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from crewgraph.flow._kickoff_api import KickoffMixin
from crewgraph.flow._memory import FlowMemoryMixin
from crewgraph.flow._people_api import PeopleMixin
from crewgraph.flow._plan_api import PlanMixin, announce
from crewgraph.flow._sentinels import UNSET
from crewgraph.flow._settings import apply_settings
from crewgraph.flow._spec import build_spec, flow_methods
from crewgraph.flow._state_api import StateMixin
from crewgraph.flow.conditions import FlowCondition, and_, or_
from crewgraph.flow.conversational.mixin import ConversationalMixin
from crewgraph.flow.declarative._api import DeclarativeMixin
from crewgraph.flow.decorators import listen, router, start
from crewgraph.flow.state import FlowState, new_state, state_id

if TYPE_CHECKING:
    from crewgraph.compiler.flow_compiler import FlowSpec
    from crewgraph.flow.async_feedback.types import PendingFeedbackContext
    from crewgraph.flow.human_feedback import HumanFeedbackResult
    from crewgraph.flow.persistence import FlowPersistence
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.graph.run_record import RunGraph
    from crewgraph.outputs import UsageMetrics

__all__ = ["Flow", "FlowCondition", "FlowMeta", "FlowState", "and_", "listen", "or_", "router", "start"]

T = TypeVar("T", bound="dict[str, Any] | BaseModel")


class FlowMeta(ABCMeta):
    """The metaclass of :class:`Flow` (CrewAI's name). An ``ABCMeta``, as CrewAI's (a pydantic
    model metaclass) is, so a flow may mix in ``abc.ABC`` and declare abstract methods; the
    class's decorated methods are read and validated in ``Flow.__init_subclass__``."""


class Flow(
    KickoffMixin, PeopleMixin, StateMixin, PlanMixin,
    ConversationalMixin, DeclarativeMixin, FlowMemoryMixin, Generic[T], metaclass=FlowMeta,
):
    """A workflow of decorated methods sharing a ``state``.

    Class attributes (each also a constructor keyword, as CrewAI's fields): ``initial_state``
    (a model class or instance, or a dict; else the ``T`` of ``Flow[T]``, else a dict),
    ``name``, ``max_method_calls`` (loop guard: how often any one method may run per kickoff,
    ``None`` for no bound), ``max_concurrency`` (methods running at once), ``memory``.
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
    entity_type: ClassVar[str] = "flow"
    """What a :class:`~crewgraph.state.runtime.RuntimeState` entry is (CrewAI's discriminator)."""
    stream: bool = False
    suppress_flow_events: bool = False
    defer_trace_finalization: bool = False
    execution_context: Any = None

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
            warnings.warn(f"flow {spec.name!r}: {problem}", FlowCompileWarning, stacklevel=3)  # past ABCMeta.__new__
        cls._spec = spec

    def __init__(
        self,
        persistence: FlowPersistence | None = None,
        memory: Any = UNSET,
        tracing: bool | None = None,
        executor: Any = None,
        checkpoint: Any = None,
        *,
        name: str | None = None,
        initial_state: Any = None,
        max_method_calls: Any = UNSET,
        input_provider: Any = None,
        stream: bool = False,
        suppress_flow_events: bool = False,
        defer_trace_finalization: bool = False,
        entity_type: str = "flow",
        execution_context: Any = None,
        human_feedback_history: list[HumanFeedbackResult] | None = None,
        last_human_feedback: HumanFeedbackResult | None = None,
        checkpoint_state: dict[str, Any] | None = None,
        checkpoint_completed_methods: set[str] | None = None,
        checkpoint_method_outputs: list[Any] | None = None,
        checkpoint_method_counts: dict[str, int] | None = None,
        **kwargs: Any,
    ) -> None:
        """``kwargs`` are initial state values, applied at every kickoff before its inputs.
        ``memory``: a Memory/MemoryScope/MemorySlice, or None to turn memory off (default:
        a ``Memory()`` created when first used). ``tracing``: OpenTelemetry spans (None: the
        class's ``tracing``, else ``$CREWGRAPH_TRACING``). ``executor``: where the methods run
        (``crewgraph.distributed.RayExecutor(...)`` for a Ray cluster; None: here). The
        keyword-only settings are CrewAI's ``Flow`` fields (see :mod:`crewgraph.flow._settings`)."""
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
        if memory is not UNSET:
            self.memory = memory
        self.human_feedback_history: list[HumanFeedbackResult] = []
        """Every ``@human_feedback`` result of this instance's kickoffs, in order."""
        apply_settings(self, {
            "name": name, "initial_state": initial_state, "max_method_calls": max_method_calls,
            "input_provider": input_provider, "stream": stream, "suppress_flow_events": suppress_flow_events,
            "defer_trace_finalization": defer_trace_finalization, "entity_type": entity_type,
            "execution_context": execution_context, "human_feedback_history": human_feedback_history,
            "last_human_feedback": last_human_feedback,
            "checkpoint_completed_methods": checkpoint_completed_methods,
            "checkpoint_method_outputs": checkpoint_method_outputs,
            "checkpoint_method_counts": checkpoint_method_counts,
        })
        values = {**(checkpoint_state or {}), **kwargs}
        self._init_values = dict(values)
        self._state: Any = new_state(self._state_template(), dict(values))
        # What __init__ (including a subclass's, after super().__init__()) left in the state:
        # captured at the first kickoff, the template of every later one.
        self._initial: Any = None
        self._method_outputs: list[Any] = []
        self._graph: ExecutionGraph | None = None
        self._run_id: str | None = None
        self._run_graph: RunGraph | None = None
        self._usage: Any = None
        self._trigger_payload: Any = None
        self._input_history: list[dict[str, Any]] = []
        self._input_lock = threading.Lock()
        self._pending_context: PendingFeedbackContext | None = None
        self._pending_store: FlowPersistence | None = None
        announce(self, "created")

    # ------------------------------------------------------------------ what a run leaves
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

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.flow_name!r}, state_id={self.flow_id!r})"
