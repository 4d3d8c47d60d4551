"""CrewAI's ``crewai.flow.human_feedback``: ``@human_feedback``, and crewgraph's pausing provider.

``@human_feedback(message=...)`` shows a method's output to a person and
hands its listeners a :class:`HumanFeedbackResult`; with ``emit=[...]`` the
free-text feedback is collapsed (by ``llm``) into one of the outcomes and the
method routes to that label. Who collects the feedback: the decorator's
``provider`` (a :class:`~crewgraph.flow.async_feedback.HumanFeedbackProvider`),
else ``flow_config.hitl_provider``, else the console.

A provider that cannot answer now raises ``HumanFeedbackPending``: the state
and the :class:`~crewgraph.flow.async_feedback.PendingFeedbackContext` are saved
to the flow's persistence (``save_pending_feedback``; the default SQLite store
when the flow names none), ``kickoff`` returns the ``HumanFeedbackPending``, and
``MyFlow.from_pending(flow_id).resume(feedback)`` continues in any process --
the method's output is kept, so the method does not run again.

:class:`PersistedInputProvider` is crewgraph's provider that pauses: as a
flow's ``input_provider`` it pauses ``self.ask`` until ``Flow.resume(run_id,
answer)``; as a ``@human_feedback`` provider it raises ``HumanFeedbackPending``.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from crewgraph.flow.async_feedback.types import HumanFeedbackPending, PendingFeedbackContext
from crewgraph.flow.decorators import get_mark
from crewgraph.nodes.flow_pause import InputRequired, current_call

__all__ = [
    "CallableInputProvider",
    "ConsoleInputProvider",
    "HumanFeedbackCollapseError",
    "HumanFeedbackResult",
    "PendingQuestion",
    "PendingRun",
    "PersistedInputProvider",
    "human_feedback",
]

F = TypeVar("F", bound=Callable[..., Any])


class HumanFeedbackCollapseError(ValueError):
    """A person's feedback could not be collapsed into one of ``emit``'s outcomes (no ``llm``
    to ask, or the model chose none of them) and there is no ``default_outcome``."""


class ConsoleInputProvider:
    """crewgraph's earlier console provider: ``ask(question, timeout=...)`` raises
    TimeoutError when nobody answers in time (``Flow.ask`` uses ConsoleProvider)."""

    def ask(self, question: str, *, timeout: float | None = None) -> str:
        print(question, flush=True)
        box: list[str] = []

        def read() -> None:
            line = sys.stdin.readline()
            box.append(line.rstrip("\n"))

        reader = threading.Thread(target=read, name="crewgraph-ask", daemon=True)
        reader.start()
        reader.join(timeout)
        if not box:
            raise TimeoutError(f"no answer to {question!r} within {timeout} s")
        return box[0]

    def request_input(self, message: str, flow: Any, metadata: dict[str, Any] | None = None) -> str:
        return self.ask(message)


class CallableInputProvider:
    """Answers with ``fn(question)`` -- a web form, a chat message, a test's script."""

    def __init__(self, fn: Callable[[str], Any]) -> None:
        self.fn = fn

    def ask(self, question: str, *, timeout: float | None = None) -> str:
        return str(self.fn(question))

    def request_input(self, message: str, flow: Any, metadata: dict[str, Any] | None = None) -> str:
        return self.ask(message)


class PersistedInputProvider:
    """Nobody answers now: the run pauses until it is resumed with the answer.

    As a flow's ``input_provider`` (``"persisted"``), ``self.ask`` pauses the run --
    the flow must be persisted (``@persist`` on the class or ``checkpoint = True``) --
    and ``Flow.resume(run_id, answer)`` continues it. As a ``@human_feedback``
    provider it raises ``HumanFeedbackPending`` (resume with ``from_pending(...).resume``
    or ``Flow.resume(run_id, feedback)``). As a crew's ``input_provider`` it pauses a
    checkpointed crew at its ``human_input`` reviews until ``crew.resume(run_id, answer)``.
    """

    pauses = True
    """Crews and ``Flow.ask`` read this: the run pauses for the answer instead of asking anyone now."""

    def request_input(self, message: str, flow: Any, metadata: dict[str, Any] | None = None) -> str:
        from crewgraph.errors import ConfigurationError

        call = current_call()
        if call is None:
            raise ConfigurationError("PersistedInputProvider works only inside a running flow method")
        if not call.pausable:
            raise ConfigurationError(
                "the flow is not persisted, so it cannot pause for input: put @persist on the "
                "Flow class (or set checkpoint = True), or use another input provider"
            )
        key = call.asking or call.next_ask_key()
        if key in call.answers:
            return call.answers[key]
        raise InputRequired(message, key)

    def ask(self, question: str, *, timeout: float | None = None) -> str:
        return self.request_input(question, None)

    def request_feedback(self, context: PendingFeedbackContext, flow: Any) -> str:
        raise HumanFeedbackPending(context=context, message=f"paused for feedback on {context.method_name!r}")


@dataclass(frozen=True)
class PendingQuestion:
    """One question a paused run waits for: asked by ``method``; ``key`` identifies it."""

    method: str
    question: str
    key: str


@dataclass(frozen=True)
class PendingRun:
    """What ``kickoff`` returns when ``self.ask`` paused the run. ``Flow.resume(run_id,
    answer)`` (or ``crewgraph flows resume RUN --answer TEXT``) continues it."""

    run_id: str
    flow_id: str
    flow_name: str
    questions: tuple[PendingQuestion, ...]

    pending: bool = field(default=True, init=False)

    @property
    def question(self) -> str:
        return self.questions[0].question

    def __str__(self) -> str:
        asked = "; ".join(f"{q.method}: {q.question}" for q in self.questions)
        return f"flow {self.flow_name!r} run {self.run_id} is paused, waiting for input ({asked})"


@dataclass
class HumanFeedbackResult:
    """What a person said about a method's output (CrewAI's fields)."""

    output: Any
    feedback: str
    outcome: str | None = None
    timestamp: datetime = field(default_factory=lambda: datetime.now(UTC))
    method_name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


class _LegacyFeedback:
    """A function ``fn(question) -> str`` or an object with ``ask(question)`` as a feedback provider."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def request_feedback(self, context: PendingFeedbackContext, flow: Any) -> str:
        question = f"{context.message}\n\n{context.method_output}" if context.method_output is not None \
            else context.message
        ask = getattr(self.target, "ask", None)
        return str((ask if callable(ask) else self.target)(question))


def _feedback_provider(given: Any) -> Any:
    if given is None:
        return None
    if given == "persisted":
        return PersistedInputProvider()
    if given == "console":
        from crewgraph.flow.async_feedback.providers import ConsoleProvider

        return ConsoleProvider()
    if callable(getattr(given, "request_feedback", None)):
        return given
    if callable(getattr(given, "ask", None)) or (callable(given) and not isinstance(given, type)):
        return _LegacyFeedback(given)
    raise TypeError(
        "@human_feedback(provider=...) must be a HumanFeedbackProvider (an object with "
        f"request_feedback(context, flow)); got {given!r}"
    )


def _llm_ref(llm: Any) -> dict[str, Any] | str | None:
    if llm is None or isinstance(llm, str):
        return llm
    model = getattr(llm, "model", None)
    return {"model": str(model)} if model is not None else {"type": type(llm).__name__}


def human_feedback(
    message: str,
    emit: Sequence[str] | None = None,
    llm: Any = None,
    default_outcome: str | None = None,
    metadata: dict[str, Any] | None = None,
    provider: Any = None,
    learn: bool = False,
    learn_source: str = "hitl",
    learn_strict: bool = False,
) -> Callable[[F], F]:
    """Show the method's output to a person with ``message`` and collect feedback (see the
    module docstring). ``learn=True`` (CrewAI's lessons from feedback) is not implemented."""
    if learn:
        raise ValueError(
            "@human_feedback(learn=True) is not supported by crewgraph (CrewAI's lessons-from-feedback "
            "memory); leave learn=False"
        )
    del learn_source, learn_strict  # only meaningful with learn=True
    outcomes = tuple(emit) if emit is not None else None
    if outcomes is not None:
        if isinstance(emit, str) or not outcomes or not all(isinstance(o, str) and o for o in outcomes):
            raise ValueError(f"@human_feedback(emit=...) takes a non-empty list of labels, got {emit!r}")
        if llm is None and default_outcome is None:
            raise ValueError("@human_feedback(emit=...) needs llm= to classify the feedback (or default_outcome=)")
    if default_outcome is not None and (outcomes is None or default_outcome not in outcomes):
        raise ValueError(f"@human_feedback default_outcome {default_outcome!r} must be one of emit={list(outcomes or ())}")
    extra = dict(metadata or {})
    own_provider = _feedback_provider(provider)

    def decorator(fn: F) -> F:
        if get_mark(fn) is not None:
            raise ValueError(
                f"put @human_feedback directly above the method {fn.__name__!r}, under @start/@listen/@router"
            )
        name = fn.__name__

        def collect(flow: Any, output: Any) -> Any:
            from crewgraph.flow._feedback import ask_feedback

            context = PendingFeedbackContext(
                flow_id=flow.flow_id,
                flow_class=f"{type(flow).__module__}.{type(flow).__qualname__}",
                method_name=name,
                method_output=output,
                message=message,
                emit=list(outcomes) if outcomes is not None else None,
                default_outcome=default_outcome,
                metadata=dict(extra),
                llm=_llm_ref(llm),
            )
            feedback = ask_feedback(flow, context, own_provider)
            outcome = None
            if outcomes is not None:
                from crewgraph.flow._feedback_llm import classify

                outcome = classify(str(feedback), outcomes, llm, default_outcome, name)
            result = HumanFeedbackResult(
                output=output, feedback=str(feedback), outcome=outcome, method_name=name, metadata=extra
            )
            flow._record_feedback(result)
            from crewgraph.flow._feedback import feedback_received

            feedback_received(flow, result)
            if outcomes is None:
                return result
            from crewgraph.nodes.router import RouteWith

            return RouteWith(outcome, result)

        def prepared_output() -> tuple[bool, Any]:
            call = current_call()
            if call is not None and call.key in call.prepared:
                return True, call.prepared[call.key]
            return False, None

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def async_wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                ready, output = prepared_output()
                if not ready:
                    output = await fn(self, *args, **kwargs)
                import asyncio

                return await asyncio.to_thread(collect, self, output)  # copies the context along

            wrapper: Any = async_wrapper
        else:
            @functools.wraps(fn)
            def sync_wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                ready, output = prepared_output()
                if not ready:
                    output = fn(self, *args, **kwargs)
                return collect(self, output)

            wrapper = sync_wrapper
        wrapper.__crewgraph_feedback__ = outcomes  # the Flow reads it: emit makes a router
        return wrapper

    return decorator
