"""Test helpers shipped with crewgraph: scripted models, a local OpenAI-compatible
server, a network guard and (from the engine) ``run_node``.

Nothing here needs a network or an API key. ``run_node``/``arun_node`` are
loaded on first access from ``crewgraph.testing.run_node`` (the engine's
module), so importing the kit does not pull in the scheduler. The pytest fixtures live in
``crewgraph.testing.pytest_plugin`` (auto-registered by the package).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph._internal.lazy import lazy_getattr
from crewgraph.testing.fake_embedder import FakeEmbedder
from crewgraph.testing.fake_llm import (
    FakeLLM,
    FakeLLMExhaustedError,
    FakeReply,
    FakeRequest,
    FakeToolCall,
)

if TYPE_CHECKING:
    from crewgraph.testing._server_llamacpp import LlamaCpp, repeated_calls, schema_echo
    from crewgraph.testing._server_shapes import TEXT_TOOL_FORMATS, written_tool_calls
    from crewgraph.testing.fake_http import FakeHTTPService, FakeRequestRecord
    from crewgraph.testing.network import NetworkBlockedError, network_blocked
    from crewgraph.testing.openai_server import (
        Faults,
        OpenAICompatServer,
        RecordedRequest,
        ServerReply,
        SlowModel,
        embedding_for,
    )
    from crewgraph.testing.run_node import arun_node, run_node

__all__ = [
    "TEXT_TOOL_FORMATS",
    "FakeEmbedder",
    "FakeHTTPService",
    "FakeLLM",
    "FakeLLMExhaustedError",
    "FakeReply",
    "FakeRequest",
    "FakeRequestRecord",
    "FakeToolCall",
    "Faults",
    "LlamaCpp",
    "NetworkBlockedError",
    "OpenAICompatServer",
    "RecordedRequest",
    "ServerReply",
    "SlowModel",
    "arun_node",
    "embedding_for",
    "network_blocked",
    "repeated_calls",
    "run_node",
    "schema_echo",
    "written_tool_calls",
]

# The HTTP server and the network guard load on first use: a test that only needs
# FakeLLM should not import http.server.
_LAZY = {
    "FakeHTTPService": "crewgraph.testing.fake_http",
    "FakeRequestRecord": "crewgraph.testing.fake_http",
    "Faults": "crewgraph.testing.openai_server",
    "LlamaCpp": "crewgraph.testing._server_llamacpp",
    "NetworkBlockedError": "crewgraph.testing.network",
    "OpenAICompatServer": "crewgraph.testing.openai_server",
    "RecordedRequest": "crewgraph.testing.openai_server",
    "ServerReply": "crewgraph.testing.openai_server",
    "SlowModel": "crewgraph.testing.openai_server",
    "TEXT_TOOL_FORMATS": "crewgraph.testing._server_shapes",
    "arun_node": "crewgraph.testing.run_node",
    "embedding_for": "crewgraph.testing.openai_server",
    "network_blocked": "crewgraph.testing.network",
    "repeated_calls": "crewgraph.testing._server_llamacpp",
    "run_node": "crewgraph.testing.run_node",
    "schema_echo": "crewgraph.testing._server_llamacpp",
    "written_tool_calls": "crewgraph.testing._server_shapes",
}


__getattr__ = lazy_getattr(__name__, _LAZY)
