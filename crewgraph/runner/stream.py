"""The streaming form of a kickoff: the same :func:`~crewgraph.runner.crew_run.run_crew`, with
every model delta handed to a :class:`~crewgraph.streaming.CrewStreamingOutput`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crewgraph.runner.crew_run import run_crew
from crewgraph.streaming.output import CrewStreamingOutput

if TYPE_CHECKING:
    from crewgraph.outputs import CrewOutput
    from crewgraph.spec.crew import CrewSpec
    from crewgraph.streaming.chunks import StreamChunk

__all__ = ["stream_crew"]


def stream_crew(
    crew: CrewSpec, inputs: list[dict[str, Any] | None], *, from_checkpoint: Any = None, on_loop: bool
) -> CrewStreamingOutput:
    """``kickoff`` (one inputs dict) or ``kickoff_for_each_async`` (several, run concurrently
    into one merged stream) with ``stream=True``. Nothing runs until the stream is iterated."""
    batch = list(inputs)

    async def run(put: Callable[[StreamChunk], None]) -> list[CrewOutput]:
        if len(batch) == 1:
            return [await run_crew(crew, batch[0], from_checkpoint=from_checkpoint, on_chunk=put)]
        tasks = [asyncio.ensure_future(run_crew(crew, i, on_chunk=put)) for i in batch]
        try:
            return list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:  # one run failed (or we were cancelled): stop the others
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    return CrewStreamingOutput(run, runs=len(batch), on_loop=on_loop)
