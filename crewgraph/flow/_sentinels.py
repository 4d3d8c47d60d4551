"""Small helpers shared by the parts of the ``Flow`` facade (kept apart so each part stays small)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["UNSET", "hybrid"]


class _Unset:
    def __repr__(self) -> str:
        return "<class default>"


UNSET: Any = _Unset()
"""A keyword not given (None means something: e.g. ``memory=None`` turns memory off)."""


class hybrid(classmethod):
    """A method callable on the class or an instance: ``fn(cls, instance_or_None, ...)``.

    ``Flow.resume(run_id, answer)`` continues a run by id from the class (the run names
    its class), while CrewAI's ``flow.resume(feedback)`` is called on the paused instance.
    A classmethod to introspection (``inspect`` sees the class-level binding)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__(fn)
        self.fn = fn

    def __get__(self, obj: Any, owner: type | None = None) -> Callable[..., Any]:
        return functools.partial(self.fn, owner if owner is not None else type(obj), obj)
