"""The Checkpointer protocol the scheduler writes through after each finished node."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Checkpointer"]


@runtime_checkable
class Checkpointer(Protocol):
    """Durable record of a run: which nodes finished and with what output.

    The scheduler calls ``start_run`` once, ``save_node`` after every node
    finishes (in one transaction, before successors start), and
    ``finish_run`` at the end. ``completed`` returns the outputs a resumed
    run must not recompute.
    """

    def start_run(self, run_id: str, *, name: str, meta: dict[str, Any]) -> None: ...

    def save_node(
        self, run_id: str, node_id: str, *, output: Any, info: dict[str, Any]
    ) -> None: ...

    def completed(self, run_id: str) -> dict[str, Any]: ...

    def finish_run(self, run_id: str, *, status: str, error: str | None = None) -> None: ...
