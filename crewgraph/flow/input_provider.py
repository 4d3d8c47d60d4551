"""CrewAI's ``crewai.flow.input_provider``: who answers ``Flow.ask(...)``.

An input provider is any object with ``request_input(message, flow, metadata=None)``
(sync or ``async def``) returning the answer -- a string, an
:class:`InputResponse` (the answer plus metadata about who gave it), or None
(no answer). The protocol is structural: nothing needs to subclass it.

The flow asks its own ``input_provider`` first, then the process-wide
``crewgraph.flow.flow_config.input_provider``, then a
:class:`~crewgraph.flow.async_feedback.providers.ConsoleProvider`.
crewgraph's :class:`~crewgraph.flow.human_feedback.PersistedInputProvider` is one
more provider: it pauses the run until ``Flow.resume(run_id, answer)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow

__all__ = ["InputProvider", "InputResponse", "resolve_input_provider"]


@dataclass
class InputResponse:
    """An answer with metadata about it (who responded, in which thread...)."""

    text: str | None
    metadata: dict[str, Any] | None = None


@runtime_checkable
class InputProvider(Protocol):
    """Answers the questions a flow asks with ``self.ask(message)``."""

    def request_input(
        self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None
    ) -> str | InputResponse | None: ...


class _AskAdapter:
    """crewgraph's earlier provider shape, ``ask(question, timeout=None)``, as an InputProvider."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def request_input(self, message: str, flow: Any, metadata: dict[str, Any] | None = None) -> Any:
        return self.target.ask(message)


class _CallableAdapter:
    """A plain function ``fn(question) -> str`` as an InputProvider."""

    def __init__(self, fn: Callable[[str], Any]) -> None:
        self.fn = fn

    def request_input(self, message: str, flow: Any, metadata: dict[str, Any] | None = None) -> Any:
        return self.fn(message)


def _named(name: str) -> Any:
    from crewgraph.flow.async_feedback.providers import ConsoleProvider
    from crewgraph.flow.human_feedback import PersistedInputProvider

    named: dict[str, Callable[[], Any]] = {"console": ConsoleProvider, "persisted": PersistedInputProvider}
    if name not in named:
        raise ValueError(f"input_provider {name!r} is not one of {sorted(named)}")
    return named[name]()


def as_input_provider(given: Any) -> Any:
    """``given`` as an object with ``request_input`` (a name, a callable and crewgraph's
    earlier ``ask(question)`` objects are adapted); a clear TypeError otherwise."""
    if isinstance(given, str):
        return _named(given)
    if callable(getattr(given, "request_input", None)):
        return given
    if callable(getattr(given, "ask", None)):
        return _AskAdapter(given)
    if callable(given) and not isinstance(given, type):
        return _CallableAdapter(given)
    raise TypeError(
        "input_provider must be an InputProvider (an object with "
        "request_input(message, flow, metadata=None)), a function fn(message) -> str, "
        f"'console' or 'persisted'; got {given!r}"
    )


def resolve_input_provider(flow: Any) -> Any:
    """The provider ``flow.ask`` uses: the flow's, else ``flow_config``'s, else the console."""
    from crewgraph.flow.flow_config import flow_config

    given = getattr(flow, "input_provider", None)
    if given is None:
        given = flow_config.input_provider
    if given is None:
        from crewgraph.flow.async_feedback.providers import ConsoleProvider

        return ConsoleProvider()
    return as_input_provider(given)


def takes_metadata(method: Any) -> bool:
    """Whether a ``request_input`` accepts the ``metadata`` argument (a provider written as
    ``request_input(self, message, flow)`` is called without it)."""
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return True
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return True
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params) >= 3 or any(
        p.name == "metadata" for p in params
    )
