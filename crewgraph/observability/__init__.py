"""Observability: OpenTelemetry spans of crew and flow runs, built from the event bus.

Opt in with ``Crew(tracing=True)``, ``Flow(tracing=True)`` or ``CREWGRAPH_TRACING=true``;
needs ``pip install 'crewgraph[otel]'`` plus the user's own SDK and exporter.
``import crewgraph`` never imports OpenTelemetry: the listener loads it when a run
with tracing on starts.
"""

from crewgraph.observability.run_tracing import traced_run
from crewgraph.observability.settings import (
    capture_content,
    content_capture_on,
    get_tracer,
    tracing_enabled,
    use_tracer_provider,
)

__all__ = [
    "capture_content",
    "content_capture_on",
    "get_tracer",
    "traced_run",
    "tracing_enabled",
    "use_tracer_provider",
]
