"""``Flow.stream_events`` / ``Flow.astream``: a flow run as a stream of model chunks, then its result.

The run is an ordinary kickoff under a run id chosen up front; every
``LLMStreamChunkEvent`` of that run -- the deltas of the models that stream
inside its methods (an ``LLM(stream=True)``, a ``Crew(stream=True)``), which
share the flow's run id -- becomes a :class:`~crewgraph.streaming.StreamChunk`
of the returned :class:`~crewgraph.streaming.output.CrewStreamingOutput`
(iterate it, then read ``.result``: the flow's result). ``stream_events`` runs
the flow in a worker thread (a plain ``for`` loop reads it); ``astream`` on the
caller's loop (``async for``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow
    from crewgraph.streaming.chunks import StreamChunk
    from crewgraph.streaming.output import CrewStreamingOutput

__all__ = ["stream_flow"]


def stream_flow(flow: Flow[Any], args: tuple[Any, ...], *, on_loop: bool) -> CrewStreamingOutput:
    from crewgraph.streaming.output import CrewStreamingOutput

    async def run(put: Callable[[StreamChunk], None]) -> list[Any]:
        from crewgraph._internal.run_context import run_scope
        from crewgraph.events.bus import crewgraph_event_bus
        from crewgraph.events.llm_events import LLMStreamChunkEvent
        from crewgraph.flow._kickoff_api import start_kickoff
        from crewgraph.ids import new_run_id
        from crewgraph.streaming.chunks import StreamChunk, StreamChunkType

        run_id = new_run_id()

        def forward(source: Any, event: LLMStreamChunkEvent) -> None:
            if event.run_id != run_id:
                return
            put(StreamChunk(
                content=event.chunk,
                chunk_type=StreamChunkType.TOOL_CALL if event.chunk_type == "tool_call" else StreamChunkType.TEXT,
                task_name=event.task_name or "", agent_role=event.agent_role or "",
                run_id=run_id, node_id=event.node_id or "",
            ))

        crewgraph_event_bus.register_handler(LLMStreamChunkEvent, forward, inline=True)
        try:
            with run_scope(run_id):
                result = await start_kickoff(flow, *args)
            await crewgraph_event_bus.adrain()
        finally:
            crewgraph_event_bus.off(LLMStreamChunkEvent, forward)
        return [result]

    return CrewStreamingOutput(run, on_loop=on_loop)
