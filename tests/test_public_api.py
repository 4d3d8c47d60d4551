"""The curated public namespace, the seed's import paths, and what `import crewgraph` loads."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import crewgraph

EXPECTED = [
    "LLM", "Agent", "BaseLLM", "CheckpointConfig", "CompileError", "Crew", "CrewBase", "CrewGraphError", "CrewOutput",
    "CrewStreamingOutput", "ExecutionGraph", "Flow", "GuardrailError", "Knowledge", "LLMError", "Memory", "MemoryScope",
    "MemorySlice", "Process", "StreamChunk", "StreamChunkType", "Task", "TaskOutput", "ToolExecutionFailedError",
    "UsageMetrics",
]


def isort_key(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 keeps: CONSTANTS, then Classes, then functions."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_is_sorted_exact_and_resolves() -> None:
    assert crewgraph.__all__ == sorted(crewgraph.__all__, key=isort_key)
    assert sorted(crewgraph.__all__) == sorted(EXPECTED)
    for name in crewgraph.__all__:
        assert getattr(crewgraph, name) is not None, name
    with pytest.raises(AttributeError):
        _ = crewgraph.NotAThing  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("crewgraph.tools", ["BaseTool", "tool"]),
        ("crewgraph.tools.tool_failure", ["ToolFailure", "ToolFailurePolicy", "ToolFailureReason", "ToolExecutionFailedError"]),
        ("crewgraph.events", ["ToolFailureDetectedEvent", "BaseEventListener", "MemoryQueryCompletedEvent"]),
        ("crewgraph.events.event_bus", ["crewgraph_event_bus"]),
        ("crewgraph.flow.flow", ["Flow", "start", "listen", "router", "and_", "or_"]),
        ("crewgraph.flow.human_feedback", ["human_feedback", "HumanFeedbackResult"]),
        ("crewgraph.events", ["Depends", "FlowPausedEvent"]),
        ("crewgraph.testing", ["FakeLLM", "run_node"]),
        ("crewgraph.memory.storage.backend", ["StorageBackend"]),
        ("crewgraph.rag.embeddings.factory", ["build_embedder"]),
        ("crewgraph.hooks", ["before_llm_call", "after_tool_call", "LLMCallHookContext", "HookAborted",
                             "register_before_tool_call_hook", "clear_all_global_hooks"]),
    ],
)
def test_seed_import_paths_exist(module: str, names: list[str]) -> None:
    mod = importlib.import_module(module)
    for name in names:
        assert hasattr(mod, name), f"{module}.{name}"


@pytest.mark.parametrize(
    "package",
    ["crewgraph.events", "crewgraph.graph", "crewgraph.llm", "crewgraph.tools", "crewgraph.spec",
     "crewgraph.runtime", "crewgraph.compiler", "crewgraph.testing", "crewgraph.nodes", "crewgraph.checkpoint",
     "crewgraph.export", "crewgraph.memory", "crewgraph.flow", "crewgraph.toolkit", "crewgraph.streaming",
     "crewgraph.knowledge", "crewgraph.tools.mcp", "crewgraph.mcp", "crewgraph.hooks",
     "crewgraph.observability", "crewgraph.distributed", "crewgraph.ui"],
)
def test_each_package_has_a_sorted_all(package: str) -> None:
    mod = importlib.import_module(package)
    names = list(mod.__all__)
    assert names == sorted(names, key=isort_key), package
    for name in names:
        assert getattr(mod, name, None) is not None, f"{package}.{name}"


HEAVY = ["networkx", "openai", "instructor", "httpx", "qdrant_client", "qdrant_edge", "onnxruntime",
         "tokenizers", "graphviz", "rich", "tenacity", "typer", "yaml", "opentelemetry", "ray",
         "starlette", "uvicorn", "selenium"]


def test_import_crewgraph_loads_no_heavy_library() -> None:
    code = (
        "import sys, json\n"
        "from crewgraph import Agent, Task, Crew, Process, LLM, Memory, Flow, CrewStreamingOutput\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_core_import_builds_no_pydantic_validator() -> None:
    """The names of the import-time goal define models but validate nothing: pydantic loads its
    plugins (importlib.metadata, email, zipfile...) when a validator is first built, so a model
    instance made at import time (a default ``UsageMetrics()``) costs ~40 ms of every import."""
    code = (
        "import sys\n"
        "from crewgraph import Agent, Task, Crew, Process, LLM\n"
        "print('pydantic.plugin._loader' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# What the five names of the import-time goal must not pull in: each was measured at 1-5 ms of
# CPU (the budget is 1.5x `from pydantic import BaseModel`, ~28 ms above it in all).
NOT_AT_IMPORT = ["json", "logging", "asyncio", "crewgraph.outputs", "crewgraph.errors", "crewgraph.llm.providers",
                 "crewgraph.llm._retry", "crewgraph.llm.structured", "crewgraph.spec._crew_rules",
                 "pydantic.functional_serializers"]


def test_core_import_leaves_run_time_modules_unloaded() -> None:
    code = (
        "import sys, importlib\n"
        "before = set(sys.modules)\n"
        "exec('from crewgraph import Agent, Task, Crew, Process, LLM')\n"
        f"print(','.join(m for m in {NOT_AT_IMPORT!r} if m in sys.modules and m not in before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
