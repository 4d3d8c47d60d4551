"""``NodePrefix``: "the first k entries of a shared list of node ids", in O(1) space.

A sequential crew's default context gives task *i* every earlier task's output.
Stored as a tuple per task that is N^2/2 ids for N tasks (10,000 tasks: 50 million
references); stored as edges it is N^2/2 graph edges to build and check for cycles.
Every task's implicit context is a *prefix* of one list (the tasks' final nodes in
order), so each task keeps a view of that list and a length instead.

The shared list is only appended to while the crew compiles, and a view never
shows more than the entries it was created with, so a view is immutable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

__all__ = ["NodePrefix"]


class NodePrefix(Sequence[str]):
    """The first ``length`` ids of ``pool`` (a list that only grows)."""

    __slots__ = ("_length", "_pool")

    def __init__(self, pool: list[str], length: int) -> None:
        if length > len(pool):
            raise ValueError(f"prefix of {length} ids over a pool of {len(pool)}")
        self._pool = pool
        self._length = length

    @property
    def pool_id(self) -> int:
        """Identity of the shared list: views of one pool extend each other."""
        return id(self._pool)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return tuple(self._pool[: self._length][index])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._pool[index]

    def __iter__(self) -> Iterator[str]:
        pool = self._pool
        for i in range(self._length):
            yield pool[i]

    def __contains__(self, value: object) -> bool:
        return value in self._pool[: self._length]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodePrefix):
            return self._length == other._length and (
                self._pool is other._pool or self._pool[: self._length] == other._pool[: other._length]
            )
        if isinstance(other, tuple | list):
            return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: Any) -> tuple[str, ...]:
        return (*self, *other)

    def __repr__(self) -> str:
        if self._length <= 4:
            return f"NodePrefix({list(self)!r})"
        return f"NodePrefix([{self._pool[0]!r}, ... {self._pool[self._length - 1]!r}], {self._length} ids)"

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent alone (a checkpoint, another process) it carries only its own ids.
        return (NodePrefix, (list(self), self._length))
