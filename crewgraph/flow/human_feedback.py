"""Human input inside flows: ``Flow.ask``, input providers and ``@human_feedback``.

A method asks a person something with ``self.ask(question)``. Who answers is
the flow's *input provider*:

- :class:`ConsoleInputProvider` -- prints the question, reads a line (the
  default when the flow is not persisted);
- :class:`CallableInputProvider` -- any ``fn(question) -> str`` (a UI, a test);
- :class:`PersistedInputProvider` -- nobody answers now: the run **pauses**.
  The method's node returns a pending result, the run is saved with its
  question, ``kickoff`` returns a :class:`PendingRun`, and
  ``Flow.resume(run_id, answer)`` continues it later, in any process. The
  default when the flow is persisted (``@persist`` on the class or
  ``checkpoint = True``).

On resume the paused method runs again from its start; its ``ask`` calls get
the stored answers in order, so the code before the question should be
cheap or idempotent. ``@human_feedback`` avoids even that: it stores the
method's output with the question, so the method itself is not run again.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

from crewgraph.flow.decorators import get_mark
from crewgraph.nodes.flow_pause import InputRequired, current_call

__all__ = [
    "CallableInputProvider",
    "ConsoleInputProvider",
    "HumanFeedbackResult",
    "InputProvider",
    "PendingQuestion",
    "PendingRun",
    "PersistedInputProvider",
    "human_feedback",
    "resolve_provider",
]

F = TypeVar("F", bound=Callable[..., Any])


@runtime_checkable
class InputProvider(Protocol):
    """Answers a question asked by a flow method (``timeout`` in seconds, or None)."""

    def ask(self, question: str, *, timeout: float | None = None) -> str: ...


class ConsoleInputProvider:
    """Print the question and read one line from stdin (bounded by ``timeout``)."""

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


class CallableInputProvider:
    """Answers with ``fn(question)`` -- a web form, a chat message, a test's script."""

    def __init__(self, fn: Callable[[str], Any]) -> None:
        self.fn = fn

    def ask(self, question: str, *, timeout: float | None = None) -> str:
        return str(self.fn(question))


class PersistedInputProvider:
    """Pause the run until the question is answered with ``Flow.resume(run_id, answer)``.

    Needs a persisted flow (the run must be saved to be resumed): ``@persist`` on the
    class, or ``checkpoint = True``. As a crew's ``input_provider`` it pauses a checkpointed
    crew at its ``human_input`` reviews until ``crew.resume(run_id, answer)``.
    """

    pauses = True
    """Crews read this: the run pauses for the answer instead of asking anyone now."""

    def ask(self, question: str, *, timeout: float | None = None) -> str:
        call = current_call()
        if call is None:
            raise RuntimeError("PersistedInputProvider.ask() works only inside a running flow method")
        if not call.pausable:
            raise RuntimeError(
                "the flow is not persisted, so it cannot pause for input: put @persist on the "
                "Flow class (or set checkpoint = True), or use another input provider"
            )
        key = call.next_ask_key()
        if key in call.answers:
            return call.answers[key]
        raise InputRequired(question, key)


def resolve_provider(given: Any, persisted: bool) -> InputProvider:
    """The provider a flow's ``input_provider`` stands for (None: by persistence)."""
    if given is None:
        return PersistedInputProvider() if persisted else ConsoleInputProvider()
    if isinstance(given, str):
        named: dict[str, Callable[[], InputProvider]] = {
            "console": ConsoleInputProvider,
            "persisted": PersistedInputProvider,
        }
        if given not in named:
            raise ValueError(f"input_provider {given!r} is not one of {sorted(named)}")
        provider: InputProvider = named[given]()
        return provider
    if isinstance(given, InputProvider):
        return given
    if callable(given):
        return CallableInputProvider(given)
    raise TypeError(f"input_provider must be an InputProvider, a callable or a name, got {given!r}")


@dataclass(frozen=True)
class PendingQuestion:
    """One question a paused run waits for: asked by ``method``; ``key`` identifies it."""

    method: str
    question: str
    key: str


@dataclass(frozen=True)
class PendingRun:
    """What ``kickoff`` returns when the run paused for input. ``Flow.resume(run_id,
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


def human_feedback(
    message: str,
    emit: Sequence[str] | None = None,
    llm: Any = None,
    default_outcome: str | None = None,
    metadata: dict[str, Any] | None = None,
    provider: Any = None,
) -> Callable[[F], F]:
    """Show the method's output to a person with ``message`` and collect feedback.

    Without ``emit`` the method's listeners receive a :class:`HumanFeedbackResult`.
    With ``emit=[...]`` the method becomes a router: the free-text feedback is
    classified by ``llm`` into one of the outcomes (an exact match needs no LLM call;
    empty feedback takes ``default_outcome``) and that label's listeners run,
    receiving the HumanFeedbackResult. ``provider`` overrides the flow's input provider.
    With a persisted flow the run pauses for the feedback; the method's output is
    stored with the question, so on resume the method does not run again.
    """
    outcomes = tuple(emit) if emit is not None else None
    if outcomes is not None:
        if isinstance(emit, str) or not outcomes or not all(isinstance(o, str) and o for o in outcomes):
            raise ValueError(f"@human_feedback(emit=...) takes a non-empty list of labels, got {emit!r}")
        if llm is None and default_outcome is None:
            raise ValueError("@human_feedback(emit=...) needs llm= to classify the feedback (or default_outcome=)")
    if default_outcome is not None and (outcomes is None or default_outcome not in outcomes):
        raise ValueError(f"@human_feedback default_outcome {default_outcome!r} must be one of emit={list(outcomes or ())}")
    extra = dict(metadata or {})

    def decorator(fn: F) -> F:
        if get_mark(fn) is not None:
            raise ValueError(
                f"put @human_feedback directly above the method {fn.__name__!r}, under @start/@listen/@router"
            )
        name = fn.__name__

        def collect(flow: Any, output: Any) -> Any:
            question = f"{message}\n\n{output}" if output is not None else message
            asker = resolve_provider(provider, False) if provider is not None else None
            try:
                feedback = flow.ask(question, _provider=asker)
            except InputRequired as pause:
                pause.extra["output"] = output  # stored: the method is not run again on resume
                raise
            outcome = None
            if outcomes is not None:
                from crewgraph.flow._feedback_llm import classify

                outcome = classify(str(feedback), outcomes, llm, default_outcome, name)
            result = HumanFeedbackResult(
                output=output, feedback=str(feedback), outcome=outcome, method_name=name, metadata=extra
            )
            flow._record_feedback(result)
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

                return await asyncio.to_thread(collect, self, output)

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
