"""Task prompts that share the text of earlier outputs instead of each holding a copy.

With CrewAI's default context, task *k*'s prompt carries every earlier output, so a crew
of N tasks sends prompts whose total size grows as N^2. Sending them is what the model
needs; *keeping* them is not: each ``TaskOutput.messages``, the run graph's model-call
records and a ``FakeLLM``'s request log held every prompt whole, and a 10,000-task crew
peaked at 3 GB. Here the context part of a prompt is a :class:`ContextRef` -- the first
``count`` entries of one append-only list of entry texts the whole run shares -- and the
prompt's text is rebuilt from it when someone reads it.

- :class:`PromptMessage` is what the model is sent: a plain ``{"role": "user", "content":
  text}`` dict holding the full text (every reader, C-level or not, sees ordinary data),
  which also knows how the text was built (``retained()``).
- :class:`CompactMessage` is what is kept after the call: a dict that reads as the same
  ``{"role", "content"}`` message (``m["content"]``, ``get``, iteration, ``items``,
  ``dict(m)``, ``json.dumps``, ``==``, ``copy``, pickle) but stores only the ref; the text
  is joined again on each read. Changing it turns it into a plain, filled-in dict.

Code that reads a ``CompactMessage`` through C-level dict internals (``PyDict_Next``, as
pydantic-core does when validating a ``dict`` field) would not see ``content``: crewgraph
hands such code plain dicts (``plain_messages``); ``TaskOutput`` validates and dumps them
through it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = [
    "CompactMessage",
    "ContextRef",
    "PromptMessage",
    "compact_message",
    "compact_parts",
    "plain_messages",
    "retained_messages",
]


class ContextRef:
    """The first ``count`` texts of the shared, append-only ``parts`` list, joined by ``separator``."""

    __slots__ = ("count", "parts", "separator")

    def __init__(self, parts: list[str], count: int, separator: str) -> None:
        self.parts = parts
        self.count = count
        self.separator = separator

    def text(self) -> str:
        return self.separator.join(self.parts[: self.count])

    def __reduce__(self) -> tuple[Any, ...]:
        # A pickle (a checkpoint) keeps the entries this ref covers, not the run's whole list.
        return ContextRef, (self.parts[: self.count], self.count, self.separator)


class _Source:
    """``head + context + tail``: how a prompt's text is built."""

    __slots__ = ("context", "head", "tail")

    def __init__(self, head: str, context: ContextRef, tail: str) -> None:
        self.head, self.context, self.tail = head, context, tail

    def text(self) -> str:
        return self.head + self.context.text() + self.tail


class PromptMessage(dict[str, Any]):
    """The user message a model is sent: an ordinary dict with the full text, plus how it
    was built, so what outlives the call can keep a :class:`CompactMessage` instead."""

    __slots__ = ("_source", "_text")

    def __init__(self, head: str, context: ContextRef, tail: str, text: str | None = None) -> None:
        source = _Source(head, context, tail)
        full = source.text() if text is None else text
        super().__init__(role="user", content=full)
        self._source = source
        self._text = full

    def retained(self) -> dict[str, Any]:
        """A :class:`CompactMessage` of this message, or a plain copy when it was changed
        since it was built (a ``before_llm_call`` hook edited it)."""
        if self._unchanged():
            return CompactMessage(self._source)
        return dict(self)

    def _unchanged(self) -> bool:
        return len(self) == 2 and dict.get(self, "role") == "user" and dict.get(self, "content") is self._text

    def copy(self) -> dict[str, Any]:
        """A copy that still knows its source (a plain dict once the message was changed)."""
        if self._unchanged():
            return PromptMessage(self._source.head, self._source.context, self._source.tail, self._text)
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return dict, (dict(self),)


_KEYS = ("role", "content")


class CompactMessage(dict[str, Any]):
    """``{"role": "user", "content": <prompt>}`` that stores the prompt as a ref (see module doc)."""

    __slots__ = ("_source",)

    def __init__(self, source: _Source) -> None:
        super().__init__(role="user")
        self._source: _Source | None = source

    # -- reading ---------------------------------------------------------------------
    def _content(self) -> str:
        assert self._source is not None
        return self._source.text()

    def __missing__(self, key: str) -> Any:
        if key == "content" and self._source is not None:
            return self._content()
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key == "content" and self._source is not None:
            return self._content()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return (key == "content" and self._source is not None) or dict.__contains__(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(_KEYS) if self._source is not None else dict.__iter__(self)

    def __len__(self) -> int:
        return 2 if self._source is not None else dict.__len__(self)

    def keys(self) -> Any:
        return self._plain().keys()

    def values(self) -> Any:
        return self._plain().values()

    def items(self) -> Any:
        return self._plain().items()

    def _plain(self) -> dict[str, Any]:
        if self._source is None:
            return dict(dict.items(self))
        return {"role": dict.__getitem__(self, "role"), "content": self._content()}

    def copy(self) -> dict[str, Any]:
        return self._plain()

    def __copy__(self) -> dict[str, Any]:
        return self._plain()

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        import copy

        return copy.deepcopy(self._plain(), memo)

    def __reduce__(self) -> tuple[Any, ...]:
        # A plain pickle (Ray, a batch item) holds the text and loads as a plain dict; the
        # checkpoint store pickles the parts instead (``compact_parts``/``compact_message``).
        return dict, (self._plain(),)

    def __eq__(self, other: object) -> bool:
        return self._plain() == other

    def __ne__(self, other: object) -> bool:
        return self._plain() != other

    __hash__ = None

    def __repr__(self) -> str:
        return repr(self._plain())

    def __or__(self, other: Any) -> Any:
        return self._plain() | other

    def __ror__(self, other: Any) -> Any:
        return other | self._plain()

    # -- changing: fill the text in, then behave as the plain dict it became ------------
    def _fill(self) -> None:
        if self._source is not None:
            dict.__setitem__(self, "content", self._content())
            self._source = None

    def __setitem__(self, key: str, value: Any) -> None:
        self._fill()
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self._fill()
        dict.__delitem__(self, key)

    def __ior__(self, other: Any) -> CompactMessage:  # type: ignore[override]
        self._fill()
        dict.update(self, other)
        return self

    def pop(self, key: str, *default: Any) -> Any:
        self._fill()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        self._fill()
        return dict.popitem(self)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._fill()
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._fill()
        dict.update(self, *args, **kwargs)

    def clear(self) -> None:
        self._source = None
        dict.clear(self)


def retained_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` as they are kept after a call: each unchanged prompt as a ref."""
    return [m.retained() if type(m) is PromptMessage else m for m in messages]


def plain_messages(messages: list[Any]) -> list[Any]:
    """``messages`` with every compact message as a plain dict (for C-level readers)."""
    return [m._plain() if type(m) is CompactMessage else m for m in messages]


def compact_parts(message: Any) -> tuple[str, ContextRef, str] | None:
    """``(head, context ref, tail)`` of an unchanged :class:`CompactMessage`, else None.

    The pickling hook of the checkpoint store: it stores these (the ref as its list and
    count, the list's entries once per run) and rebuilds the message with
    :func:`compact_message`."""
    if type(message) is not CompactMessage:
        return None
    source = message._source
    if source is None:
        return None
    return source.head, source.context, source.tail


def compact_message(head: str, context: ContextRef, tail: str) -> CompactMessage:
    """The :class:`CompactMessage` whose text is ``head + context.text() + tail``."""
    return CompactMessage(_Source(head, context, tail))
