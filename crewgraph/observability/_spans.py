"""What each event becomes on a span: names and GenAI semantic-convention attributes.

Kept apart from the listener so the mapping (the part a backend's UI depends on)
reads in one place. Names follow the GenAI conventions where they exist
(``chat {model}``, ``execute_tool {tool}``, ``invoke_agent {agent}``).
"""

from __future__ import annotations

import json
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.llm_events import LLMCallCompletedEvent, LLMCallStartedEvent

__all__ = ["completion_attributes", "llm_request_attributes", "node_span_name", "ns", "operation", "to_json"]

OPERATIONS = {"agent_step": "invoke_agent", "tool": "execute_tool", "manager_step": "invoke_agent"}


def ns(event: BaseEvent) -> int:
    """The event's time in nanoseconds since the epoch (spans get the events' own times)."""
    return int(event.timestamp.timestamp() * 1_000_000_000)


def to_json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def operation(kind: str | None) -> str | None:
    return OPERATIONS.get(kind or "")


def node_span_name(kind: str | None, label: str | None, node_id: str) -> str:
    op = operation(kind)
    what = label or node_id
    return f"{op} {what}" if op else f"{kind or 'node'} {what}"


def llm_request_attributes(event: LLMCallStartedEvent, content: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": event.model,
    }
    if event.tools:
        attrs["crewgraph.llm.tools"] = list(event.tools)
    if event.response_model:
        attrs["crewgraph.llm.response_model"] = event.response_model
    if content:
        attrs["gen_ai.input.messages"] = to_json(event.messages)
    return attrs


def completion_attributes(event: LLMCallCompletedEvent, content: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.usage.input_tokens": event.prompt_tokens,
        "gen_ai.usage.output_tokens": event.completion_tokens,
    }
    reason = event.finish_reason or ("tool_calls" if event.tool_calls else None)
    if reason:
        attrs["gen_ai.response.finish_reasons"] = [reason]
    if event.tool_calls:
        attrs["crewgraph.llm.tool_calls"] = list(event.tool_calls)
    if content and event.response is not None:
        attrs["gen_ai.output.messages"] = to_json([{"role": "assistant", "content": event.response}])
    return attrs
