"""Streaming crew runs: ``Crew(stream=True).kickoff()`` returns a :class:`CrewStreamingOutput`.

Iterate it for :class:`StreamChunk`s (answer text and tool-call fragments,
labelled with task and agent) while the crew works, then read ``.result``.
See docs/streaming.md. Importing this package loads pydantic only.
"""

from __future__ import annotations

from crewgraph.streaming.chunks import StreamChunk, StreamChunkType, ToolCallChunk
from crewgraph.streaming.output import CrewStreamingOutput

__all__ = ["CrewStreamingOutput", "StreamChunk", "StreamChunkType", "ToolCallChunk"]
