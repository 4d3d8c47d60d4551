"""What ``Crew.kickoff_for_each`` / ``_async`` / ``_iter`` call: the engine with the right runner.

The list forms keep input order, as CrewAI's do, and raise a
:class:`~crewgraph.errors.BatchError` after the whole batch when some inputs
failed (the error holds every output that did finish). Without an executor the
runs happen on this machine: the sync list one after the other (as CrewAI),
the async list and the iterator up to 64 at once. With ``executor=RayExecutor(...)``
each input runs on a pool of Ray worker actors (see :mod:`crewgraph.runner.batch_ray`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from crewgraph.checkpoint.location import Location
from crewgraph.distributed._batch_iter import BatchRun
from crewgraph.distributed._batch_types import BatchResult
from crewgraph.runner.batch import (
    LOCAL_ASYNC_CONCURRENCY,
    ItemRunner,
    LocalItemRunner,
    batch_error,
    check_inputs,
    run_batch,
)

if TYPE_CHECKING:
    from crewgraph.spec.crew import CrewSpec

__all__ = ["for_each_async", "for_each_iter", "for_each_sync"]


def _make_runner(executor: Any, local_concurrency: int) -> Callable[[Location | None], ItemRunner]:
    if executor is None:
        return lambda path: LocalItemRunner(path, local_concurrency)
    from crewgraph.runner.batch_ray import ray_item_runner

    return lambda path: ray_item_runner(executor, path)


def _results(crew: CrewSpec, inputs: list[dict[str, Any]], executor: Any, max_concurrency: int | None,
             from_checkpoint: Any, local_concurrency: int) -> AsyncIterator[BatchResult]:
    return run_batch(crew, inputs, make_runner=_make_runner(executor, local_concurrency),
                     max_concurrency=max_concurrency, from_checkpoint=from_checkpoint,
                     local_concurrency=local_concurrency)


async def _collect(agen: AsyncIterator[BatchResult]) -> list[Any]:
    results = [r async for r in agen]
    error = batch_error(results, next((r.batch_id for r in results if r.batch_id), None))
    if error is not None:
        raise error
    return [r.output for r in sorted(results, key=lambda r: r.index)]


def for_each_sync(crew: CrewSpec, inputs: Any, *, executor: Any = None, max_concurrency: int | None = None,
                  from_checkpoint: Any = None) -> list[Any]:
    """``kickoff_for_each``: every output, in input order."""
    from crewgraph._internal.sync import run_sync

    items = check_inputs(inputs)
    return run_sync(_collect(_results(crew, items, executor, max_concurrency, from_checkpoint, 1)))


async def for_each_async(crew: CrewSpec, inputs: Any, *, executor: Any = None, max_concurrency: int | None = None,
                         from_checkpoint: Any = None) -> list[Any]:
    """``kickoff_for_each_async``: every output, in input order, runs overlapping."""
    items = check_inputs(inputs)
    return await _collect(_results(crew, items, executor, max_concurrency, from_checkpoint,
                                   LOCAL_ASYNC_CONCURRENCY))


def for_each_iter(crew: CrewSpec, inputs: Any, *, executor: Any = None, max_concurrency: int | None = None,
                  from_checkpoint: Any = None) -> BatchRun:
    """``kickoff_for_each_iter``: a :class:`BatchRun` yielding each input's result as it finishes."""
    items = check_inputs(inputs)
    return BatchRun(lambda: _results(crew, items, executor, max_concurrency, from_checkpoint,
                                     LOCAL_ASYNC_CONCURRENCY), len(items))
