"""Publish CrewAI's MCP events on the bus (built only when someone listens)."""

from __future__ import annotations

from typing import Any

from crewgraph.tools.mcp.config import MCPServerConfig, _redact

__all__ = ["emit_mcp"]


def emit_mcp(event_type: type[Any], config: MCPServerConfig, **fields: Any) -> None:
    from crewgraph._internal.run_context import current_run_id
    from crewgraph.events.bus import crewgraph_event_bus

    if not crewgraph_event_bus.has_handlers(event_type):
        return
    url = getattr(config, "url", None)
    event = event_type(
        server_name=config.server_name(),
        server_url=_redact(url) if url else None,
        transport_type={"streamable-http": "http"}.get(config.transport, config.transport),
        **fields,
    )
    run_id = current_run_id()
    if run_id is not None and getattr(event, "run_id", None) is None:
        event.run_id = run_id
    crewgraph_event_bus.emit(config, event)
