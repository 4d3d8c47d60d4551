"""What a batch hands back per input: :class:`BatchResult` (light: no Ray, no scheduler)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["BatchResult"]


@dataclass(frozen=True)
class BatchResult:
    """One input's outcome, as ``kickoff_for_each_iter`` yields it when the input finishes.

    ``index`` is the input's position in the list; ``output`` its ``CrewOutput`` (None when
    it failed: then ``error`` says why and ``exception`` holds the exception of this process
    or a ``BatchError``-friendly copy from a Ray worker). ``restored`` is True for an input
    that had finished before a resume (its output comes from the batch record, nothing re-ran).
    ``run_id`` names the input's checkpointed run and ``batch_id`` the batch (both None when
    the batch is not checkpointed).
    """

    index: int
    inputs: dict[str, Any]
    output: Any = None
    error: str | None = None
    run_id: str | None = None
    batch_id: str | None = None
    restored: bool = False
    seconds: float = 0.0
    exception: BaseException | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """Whether the input finished (``output`` is set)."""
        return self.error is None
