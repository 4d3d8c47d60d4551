"""Spans go to an in-memory exporter on a provider of the test's own (not the global one)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from crewgraph.observability import capture_content, use_tracer_provider

if TYPE_CHECKING:  # the SDK is imported by the fixture, so collecting the suite does not import it
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class Spans:
    """The finished spans, and their tree by parent."""

    def __init__(self, exporter: InMemorySpanExporter, provider: TracerProvider) -> None:
        self.exporter = exporter
        self.provider = provider

    @property
    def all(self) -> list[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda s: s.start_time or 0)

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.all if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.named(name)
        assert len(found) == 1, (name, [s.name for s in self.all])
        return found[0]

    def children(self, span: ReadableSpan) -> list[ReadableSpan]:
        return [s for s in self.all if s.parent is not None and s.parent.span_id == span.context.span_id]

    def parent(self, span: ReadableSpan) -> ReadableSpan | None:
        if span.parent is None:
            return None
        return next((s for s in self.all if s.context.span_id == span.parent.span_id), None)

    def tree(self) -> list[str]:
        """Indented names, for readable assertion messages."""
        lines: list[str] = []

        def walk(span: ReadableSpan, depth: int) -> None:
            lines.append("  " * depth + span.name)
            for child in self.children(span):
                walk(child, depth + 1)

        for root in [s for s in self.all if self.parent(s) is None]:
            walk(root, 0)
        return lines


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[Spans]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    monkeypatch.delenv("CREWGRAPH_TRACING", raising=False)
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    monkeypatch.delenv("CREWGRAPH_TRACE_CONTENT", raising=False)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    yield Spans(exporter, provider)
    use_tracer_provider(None)
    capture_content(None)
    provider.shutdown()
