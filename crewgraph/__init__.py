"""crewgraph: teams of LLM agents, compiled to a typed execution graph.

The public namespace is curated here. Names are loaded on first access so
``import crewgraph`` stays fast (heavy libraries load where they are used);
``__all__`` lists exactly what is public and a test guards it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph._internal.facade import facade_getattr

if TYPE_CHECKING:
    from crewgraph.checkpoint import CheckpointConfig
    from crewgraph.crew import Crew
    from crewgraph.errors import (
        CompileError,
        CrewGraphError,
        GuardrailError,
        LLMError,
        ToolExecutionFailedError,
    )
    from crewgraph.flow import Flow
    from crewgraph.graph import ExecutionGraph
    from crewgraph.knowledge import Knowledge
    from crewgraph.llm import LLM, BaseLLM
    from crewgraph.memory import Memory, MemoryScope, MemorySlice
    from crewgraph.outputs import CrewOutput, TaskOutput, UsageMetrics
    from crewgraph.project import CrewBase
    from crewgraph.spec import Agent, Process, Task
    from crewgraph.streaming import CrewStreamingOutput, StreamChunk, StreamChunkType

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Agent": "crewgraph.spec",
    "BaseLLM": "crewgraph.llm",
    "CheckpointConfig": "crewgraph.checkpoint",
    "CompileError": "crewgraph.errors",
    "Crew": "crewgraph.crew",
    "CrewGraphError": "crewgraph.errors",
    "CrewOutput": "crewgraph.outputs",
    "CrewStreamingOutput": "crewgraph.streaming",
    "ExecutionGraph": "crewgraph.graph",
    "Flow": "crewgraph.flow",
    "GuardrailError": "crewgraph.errors",
    "LLM": "crewgraph.llm",
    "LLMError": "crewgraph.errors",
    "Memory": "crewgraph.memory",
    "MemoryScope": "crewgraph.memory",
    "MemorySlice": "crewgraph.memory",
    "Process": "crewgraph.spec",
    "StreamChunk": "crewgraph.streaming",
    "StreamChunkType": "crewgraph.streaming",
    "Task": "crewgraph.spec",
    "TaskOutput": "crewgraph.outputs",
    "ToolExecutionFailedError": "crewgraph.errors",
    "UsageMetrics": "crewgraph.outputs",
}

__all__ = [
    "LLM",
    "Agent",
    "BaseLLM",
    "CheckpointConfig",
    "CompileError",
    "Crew",
    "CrewBase",
    "CrewGraphError",
    "CrewOutput",
    "CrewStreamingOutput",
    "ExecutionGraph",
    "Flow",
    "GuardrailError",
    "Knowledge",
    "LLMError",
    "Memory",
    "MemoryScope",
    "MemorySlice",
    "Process",
    "StreamChunk",
    "StreamChunkType",
    "Task",
    "TaskOutput",
    "ToolExecutionFailedError",
    "UsageMetrics",
]


# CrewAI's top-level names that live elsewhere (CrewBase, Knowledge) come from the path table.
__getattr__ = facade_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
