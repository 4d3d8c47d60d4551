"""Model clients: the ``BaseLLM`` contract, the OpenAI-compatible ``LLM``, record/replay.

Importing this package is cheap: the ``openai`` SDK, instructor and httpx load
on the first real call. ``crewgraph.testing.FakeLLM`` scripts replies for tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph._internal.lazy import lazy_getattr
from crewgraph.llm.base import BaseLLM

if TYPE_CHECKING:
    from crewgraph.llm.openai_llm import LLM
    from crewgraph.llm.rate_limit import RPMLimiter
    from crewgraph.llm.recording import RecordingLLM, ReplayLLM, cassette
    from crewgraph.llm.structured import StructuredMode, parse_model_output
    from crewgraph.llm.types import (
        LLMResponse,
        LLMText,
        StreamDelta,
        ToolCall,
        ToolCallDelta,
        ToolSpec,
    )

# Loaded on first access: the client, record/replay and structured-output modules pull in
# asyncio, difflib and friends, which `from crewgraph import LLM` should not pay for.
_EXPORTS = {
    "LLM": "crewgraph.llm.openai_llm",
    "LLMResponse": "crewgraph.llm.types",
    "LLMText": "crewgraph.llm.types",
    "RPMLimiter": "crewgraph.llm.rate_limit",
    "RecordingLLM": "crewgraph.llm.recording",
    "ReplayLLM": "crewgraph.llm.recording",
    "StreamDelta": "crewgraph.llm.types",
    "StructuredMode": "crewgraph.llm.structured",
    "ToolCall": "crewgraph.llm.types",
    "ToolCallDelta": "crewgraph.llm.types",
    "ToolSpec": "crewgraph.llm.types",
    "cassette": "crewgraph.llm.recording",
    "parse_model_output": "crewgraph.llm.structured",
}

__all__ = [
    "LLM",
    "BaseLLM",
    "LLMResponse",
    "LLMText",
    "RPMLimiter",
    "RecordingLLM",
    "ReplayLLM",
    "StreamDelta",
    "StructuredMode",
    "ToolCall",
    "ToolCallDelta",
    "ToolSpec",
    "as_llm",
    "cassette",
    "parse_model_output",
]


def as_llm(value: str | BaseLLM | None) -> BaseLLM | None:
    """Normalise what users pass as ``llm=``: a model name becomes ``LLM(model=name)``.

    ``None`` stays ``None`` (the caller picks its default); a :class:`BaseLLM`
    is returned as is. Anything else is a ``TypeError`` naming what was given.
    """
    if value is None or isinstance(value, BaseLLM):
        return value
    if isinstance(value, str):
        if not value.strip():
            raise ValueError("an LLM model name must not be empty")
        from crewgraph.llm.openai_llm import LLM

        return LLM(model=value.strip())
    raise TypeError(
        f"expected a model name (str) or a BaseLLM instance for llm, got {type(value).__name__}"
    )


__getattr__ = lazy_getattr(__name__, _EXPORTS)
