"""When tracing is on, whether prompts go into spans, and which tracer provider spans use.

Tracing is opt-in: ``Crew(tracing=True)``, ``Flow(tracing=True)`` or
``CREWGRAPH_TRACING=true`` (an explicit ``tracing=False`` wins over the variable).
Prompts, completions, tool arguments and results are recorded only when the user
turns content capture on (``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``,
the GenAI instrumentations' variable, or ``CREWGRAPH_TRACE_CONTENT=true``, or
``capture_content(True)``): spans often leave the machine, prompts often hold
private data. crewgraph never exports anything: spans go to the tracer provider
the user configured (OpenTelemetry's global one unless ``use_tracer_provider``
names another).
"""

from __future__ import annotations

import os
from typing import Any

from crewgraph._internal.extras import import_extra

__all__ = ["capture_content", "content_capture_on", "get_tracer", "tracing_enabled", "use_tracer_provider"]

_TRUE = {"1", "true", "yes", "on"}
_provider: Any = None
_capture: bool | None = None


def _env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def tracing_enabled(own: bool | None) -> bool:
    """A crew's or flow's ``tracing`` setting, else ``$CREWGRAPH_TRACING``."""
    return bool(own) if own is not None else _env_true("CREWGRAPH_TRACING")


def capture_content(on: bool | None) -> None:
    """Record prompts, completions and tool arguments/results in spans (None: back to the env vars)."""
    global _capture
    _capture = on


def content_capture_on() -> bool:
    if _capture is not None:
        return _capture
    return _env_true("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT") or _env_true("CREWGRAPH_TRACE_CONTENT")


def use_tracer_provider(provider: Any) -> None:
    """Send crewgraph's spans to ``provider`` instead of OpenTelemetry's global one (None: global)."""
    global _provider
    _provider = provider


def get_tracer() -> Any:
    """crewgraph's tracer from the chosen provider; a clear error when opentelemetry-api is missing."""
    trace = import_extra("opentelemetry.trace", "otel", "Tracing (tracing=True / CREWGRAPH_TRACING)")
    provider = _provider if _provider is not None else trace.get_tracer_provider()
    from importlib.metadata import PackageNotFoundError, version

    try:
        own_version = version("crewgraph")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        own_version = "0"
    return provider.get_tracer("crewgraph", own_version)
