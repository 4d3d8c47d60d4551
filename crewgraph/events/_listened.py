"""Which kinds of event someone listens to, as a small value that can travel to another process.

A node asks ``ctx.wants(EventType)`` before building an event, so nothing is built for a
kind nobody receives. On the driver the answer comes from the bus itself; a step run on a
Ray worker has no handlers of its own there (the driver re-emits what the worker sends
back), so it needs the driver's answer: :class:`ListenedKinds` is that answer taken when
the step is sent -- the event classes the bus has handlers for, named by module and
qualified name (a class sent by value to the worker is another object there), and whether
the run graph's model-call recorder is on (it takes the LLM call kinds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ListenedKinds", "class_name"]


def class_name(kind: type) -> str:
    """``module.QualifiedName`` of a class: how a kind is named across processes."""
    return f"{kind.__module__}.{kind.__qualname__}"


@dataclass(frozen=True)
class ListenedKinds:
    """The event classes a bus had handlers for (by name), and whether LLM calls are traced."""

    names: frozenset[str]
    """The classes with a handler: an event listened to is an instance of one of them."""
    traced: tuple[str, ...] = ()
    """The kinds the run graph's model-call recorder takes (empty when it is off)."""
    _answers: dict[type, tuple[bool, bool]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, handled: Any, traced: tuple[type, ...] = ()) -> ListenedKinds:
        """From the classes a bus has handlers for and the kinds a recorder traces."""
        return cls(frozenset(class_name(k) for k in handled), tuple(class_name(k) for k in traced))

    def _answer(self, event_type: type) -> tuple[bool, bool]:
        known = self._answers.get(event_type)
        if known is None:
            mro = [class_name(k) for k in event_type.__mro__]
            known = (any(name in self.names for name in mro), any(name in self.traced for name in mro))
            self._answers[event_type] = known
        return known

    def listens(self, event_type: type) -> bool:
        """Whether a handler takes events of this type (the recorder aside)."""
        return self._answer(event_type)[0]

    def wants(self, event_type: type) -> bool:
        """Whether an event of this type reaches anyone: a handler or the recorder."""
        listened, traced = self._answer(event_type)
        return listened or traced

    def __reduce__(self) -> tuple[Any, ...]:
        return ListenedKinds, (self.names, self.traced)
