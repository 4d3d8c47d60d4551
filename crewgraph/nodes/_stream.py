"""Forward a node's streamed model deltas to the run's stream and the event bus.

A streaming kickoff sets ``RunState.stream``; only then does an agent step
build a :class:`ChunkForwarder` and ask its model to stream, so runs that do
not stream pay nothing. The forwarder turns each ``StreamDelta`` into an
``LLMStreamChunkEvent`` labelled with the step's task and agent, publishes it
on the bus through the node's emitter, and hands it to the run's stream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from crewgraph.events.llm_events import LLMStreamChunkEvent, StreamedToolCall
from crewgraph.graph.context import NodeContext
from crewgraph.llm.types import LLMResponse, StreamDelta, ToolCallDelta

__all__ = ["ChunkForwarder", "chunk_forwarder"]

_log = logging.getLogger("crewgraph.stream")


def chunk_forwarder(ctx: NodeContext, *, model: str, task_name: str, agent_role: str) -> ChunkForwarder | None:
    """A forwarder when the run streams, else None (then the model is not asked to stream)."""
    sink = ctx.state.stream
    if sink is None:
        return None
    return ChunkForwarder(ctx, sink, model=model, task_name=task_name, agent_role=agent_role)


class ChunkForwarder:
    """The ``on_chunk`` of one model call: delta -> ``LLMStreamChunkEvent`` -> bus and run stream."""

    def __init__(
        self,
        ctx: NodeContext,
        sink: Callable[[LLMStreamChunkEvent], None],
        *,
        model: str,
        task_name: str,
        agent_role: str,
    ) -> None:
        self._ctx = ctx
        self._sink = sink
        self._model = model
        self._task_name = task_name
        self._agent_role = agent_role
        self._arguments: dict[int, str] = {}
        self.delivered = 0

    def __call__(self, delta: StreamDelta) -> None:
        if delta.tool_call is not None:
            self._tool_call(delta.tool_call)
        elif delta.text:
            self._deliver(LLMStreamChunkEvent(chunk=delta.text, **self._labels()))

    def _tool_call(self, call: ToolCallDelta) -> None:
        so_far = self._arguments.get(call.index, "") + call.arguments
        self._arguments[call.index] = so_far
        streamed = StreamedToolCall(id=call.id, name=call.name, arguments=so_far, index=call.index)
        self._deliver(
            LLMStreamChunkEvent(chunk=call.arguments, chunk_type="tool_call", tool_call=streamed, **self._labels())
        )

    def _labels(self) -> dict[str, str]:
        return {"model": self._model, "task_name": self._task_name, "agent_role": self._agent_role}

    def _deliver(self, event: LLMStreamChunkEvent) -> None:
        self.delivered += 1
        self._ctx.emit(event)  # stamps run and node ids when a listener is registered
        if event.run_id is None:
            event.run_id = self._ctx.run_id
        if event.node_id is None:
            event.node_id = self._ctx.node_id
        try:
            self._sink(event)
        except Exception:  # a broken consumer must not fail the model call
            _log.exception("stream sink failed on a chunk of %s", self._ctx.node_id)

    def finish(self, reply: LLMResponse) -> None:
        """After the call: a model client that could not stream still shows up in the stream.

        Clients that ignore ``on_chunk`` (custom ``BaseLLM``s, cassette
        replays) return the whole turn at once; it is forwarded as one text
        chunk and one chunk per tool call, so consumers never miss a turn.
        """
        if self.delivered:
            return
        if reply.content:
            self(StreamDelta(text=reply.content))
        for index, call in enumerate(reply.tool_calls):
            self(StreamDelta(tool_call=ToolCallDelta(index=index, id=call.id, name=call.name, arguments=call.arguments)))
