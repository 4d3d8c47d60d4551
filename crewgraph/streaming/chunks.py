"""What a streaming crew yields: :class:`StreamChunk`, labelled with its task and agent.

Nodes publish ``LLMStreamChunkEvent``s that know their node and agent role;
a consumer wants "task 2, *write*, by the Writer". :func:`chunk_sink` does
that translation once per run, from the compiled plan (every node id of a
task starts with the task's key, including tool calls, delegated coworkers
and guardrail redos) and the crew's agents.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from crewgraph._internal.interpolate import interpolate

if TYPE_CHECKING:
    from crewgraph.events.llm_events import LLMStreamChunkEvent

__all__ = ["StreamChunk", "StreamChunkType", "ToolCallChunk", "chunk_sink"]


class StreamChunkType(str, Enum):
    """What a chunk carries: answer text, or a fragment of a tool call."""

    TEXT = "text"
    TOOL_CALL = "tool_call"


class ToolCallChunk(BaseModel):
    """The tool call a ``TOOL_CALL`` chunk belongs to, as far as it has streamed.

    ``arguments`` is all the JSON text received so far for this call (the
    chunk's ``content`` is only the newest fragment), so the last chunk of a
    call holds its complete arguments. Field names follow CrewAI.
    """

    tool_id: str | None = None
    tool_name: str | None = None
    arguments: str = ""
    index: int = 0

    @property
    def name(self) -> str:
        """The tool's name (``tool_name``; "" while unknown)."""
        return self.tool_name or ""


class StreamChunk(BaseModel):
    """One piece of a streaming run's output, with where it came from.

    ``content`` is new answer text (``TEXT``) or a new fragment of a tool call's
    arguments (``TOOL_CALL``, see ``tool_call``). ``task_index`` counts from 0
    in ``crew.tasks`` order; ``run_id`` tells the runs of a merged
    ``kickoff_for_each_async`` stream apart; ``node_id`` is the graph node whose
    model call produced the chunk. ``str(chunk)`` is its content.
    """

    content: str
    chunk_type: StreamChunkType = StreamChunkType.TEXT
    task_index: int = 0
    task_name: str = ""
    task_id: str = ""
    agent_role: str = ""
    agent_id: str = ""
    run_id: str = ""
    node_id: str = ""
    tool_call: ToolCallChunk | None = Field(default=None, description="Set on TOOL_CALL chunks")

    def __str__(self) -> str:
        return self.content


def chunk_sink(
    crew: Any, graph: Any, inputs: dict[str, Any], put: Callable[[StreamChunk], None]
) -> Callable[[LLMStreamChunkEvent], None]:
    """The ``RunState.stream`` of one run: event -> labelled :class:`StreamChunk` -> ``put``."""
    plans = {str(p["key"]): p for p in graph.meta.get("tasks", [])}
    agents = [*crew.agents, *([crew.manager_agent] if crew.manager_agent is not None else [])]
    agent_ids = {interpolate(a.role, inputs): str(a.id) for a in agents}
    task_ids = [str(t.id) for t in crew.tasks]

    def sink(event: LLMStreamChunkEvent) -> None:
        node_id = event.node_id or ""
        plan = plans.get(node_id.split(".", 1)[0])
        index = int(plan["index"]) if plan is not None else 0
        role = event.agent_role or ""
        call = event.tool_call
        put(
            StreamChunk(
                content=event.chunk,
                chunk_type=StreamChunkType.TOOL_CALL if event.chunk_type == "tool_call" else StreamChunkType.TEXT,
                task_index=index,
                task_name=event.task_name or (str(plan["name"]) if plan is not None else ""),
                task_id=task_ids[index] if plan is not None and index < len(task_ids) else "",
                agent_role=role,
                agent_id=agent_ids.get(role, ""),
                run_id=event.run_id or "",
                node_id=node_id,
                tool_call=(
                    ToolCallChunk(tool_id=call.id, tool_name=call.name, arguments=call.arguments, index=call.index)
                    if call is not None
                    else None
                ),
            )
        )

    return sink
