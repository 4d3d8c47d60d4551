"""CrewAI's import paths: every one a real project or template uses exists as a thin module.

Each path is imported first thing as far as crewgraph goes: one fresh interpreter imports
them in turn and, before each, drops every ``crewgraph`` module from ``sys.modules``, so a
module that only works when another crewgraph module was imported before it (an import
cycle) fails here, naming the path. The third-party libraries stay loaded between paths
(re-importing pydantic's compiled core is not safe, and it is what made ~60 interpreters
cost ~19 s of CPU against ~2 s for one; docs/benchmarks.md "## Test suite").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# (module, names it must provide) -- crewgraph's spelling of CrewAI's paths.
PATHS: list[tuple[str, list[str]]] = [
    ("crewgraph", ["Agent", "Task", "Crew", "Process", "LLM", "BaseLLM", "Flow", "CrewOutput", "TaskOutput"]),
    ("crewgraph.agent", ["Agent"]),
    ("crewgraph.task", ["Task"]),
    ("crewgraph.crew", ["Crew"]),
    ("crewgraph.process", ["Process"]),
    ("crewgraph.tasks.task_output", ["TaskOutput"]),
    ("crewgraph.tasks.conditional_task", ["ConditionalTask"]),
    ("crewgraph.agents.agent_builder.base_agent", ["BaseAgent"]),
    ("crewgraph.lite_agent", ["LiteAgent", "LiteAgentOutput"]),
    ("crewgraph.tasks.output_format", ["OutputFormat"]),
    ("crewgraph.crews.crew_output", ["CrewOutput"]),
    ("crewgraph.types.usage_metrics", ["UsageMetrics"]),
    ("crewgraph.llms.base_llm", ["BaseLLM"]),
    ("crewgraph.events.base_events", ["BaseEvent"]),
    ("crewgraph.events.event_bus", ["crewgraph_event_bus"]),
    ("crewgraph.events.base_event_listener", ["BaseEventListener"]),
    ("crewgraph.events.types.agent_events",
     ["AgentExecutionStartedEvent", "AgentExecutionCompletedEvent", "AgentExecutionErrorEvent"]),
    ("crewgraph.events.types.crew_events",
     ["CrewKickoffStartedEvent", "CrewKickoffCompletedEvent", "CrewKickoffFailedEvent"]),
    ("crewgraph.events.types.task_events", ["TaskStartedEvent", "TaskCompletedEvent", "TaskFailedEvent"]),
    ("crewgraph.events.types.llm_events", ["LLMCallStartedEvent", "LLMCallCompletedEvent", "LLMCallFailedEvent"]),
    ("crewgraph.events.types.tool_usage_events",
     ["ToolUsageStartedEvent", "ToolUsageFinishedEvent", "ToolUsageErrorEvent"]),
    ("crewgraph.events.types.memory_events", ["MemorySaveCompletedEvent", "MemoryQueryCompletedEvent"]),
    ("crewgraph.events.types.flow_events", ["FlowStartedEvent", "MethodExecutionFinishedEvent"]),
    ("crewgraph.events.types.llm_guardrail_events", ["LLMGuardrailStartedEvent", "LLMGuardrailCompletedEvent"]),
    ("crewgraph.memory.unified_memory", ["Memory"]),
    ("crewgraph.memory", ["Memory", "MemoryScope", "MemorySlice"]),
    ("crewgraph.project",
     ["CrewBase", "agent", "task", "crew", "before_kickoff", "after_kickoff", "llm", "tool"]),
    ("crewgraph.tools", ["BaseTool", "tool"]),
    ("crewgraph.tools.base_tool", ["BaseTool"]),
    ("crewgraph.tools.tool_failure", ["ToolFailure", "ToolFailurePolicy"]),
    ("crewgraph.flow.flow", ["Flow", "start", "listen", "router", "or_", "and_"]),
    ("crewgraph.flow.persistence", ["SQLiteFlowPersistence", "persist", "FlowPersistence"]),
    ("crewgraph.flow", ["Flow", "start", "listen", "router", "persist", "human_feedback", "HumanFeedbackResult",
                        "HumanFeedbackPending", "HumanFeedbackProvider", "PendingFeedbackContext",
                        "ConsoleProvider", "InputProvider", "InputResponse", "flow_config"]),
    ("crewgraph.flow.input_provider", ["InputProvider", "InputResponse"]),
    ("crewgraph.state", ["CheckpointConfig", "JsonProvider", "SqliteProvider", "CheckpointEventType"]),
    ("crewgraph.state.checkpoint_config", ["CheckpointConfig"]),
    ("crewgraph.flow.async_feedback", ["ConsoleProvider", "HumanFeedbackPending", "HumanFeedbackProvider",
                                       "PendingFeedbackContext"]),
    ("crewgraph.flow.async_feedback.providers", ["ConsoleProvider"]),
    ("crewgraph.flow.async_feedback.types", ["HumanFeedbackPending", "HumanFeedbackProvider",
                                             "PendingFeedbackContext"]),
    ("crewgraph.flow.human_feedback", ["human_feedback", "HumanFeedbackResult"]),
    ("crewgraph.events.types.flow_events", ["FlowInputRequestedEvent", "FlowInputReceivedEvent",
                                            "HumanFeedbackRequestedEvent", "HumanFeedbackReceivedEvent"]),
    ("crewgraph.mcp", ["MCPServerStdio", "MCPServerHTTP", "MCPServerSSE", "create_static_tool_filter"]),
    ("crewgraph.mcp.filters", ["create_static_tool_filter", "create_dynamic_tool_filter", "ToolFilterContext"]),
    ("crewgraph.toolkit", ["MCPServerAdapter"]),
    ("crewgraph.knowledge.knowledge", ["Knowledge"]),
    ("crewgraph.knowledge.knowledge_config", ["KnowledgeConfig"]),
    ("crewgraph.knowledge.source.string_knowledge_source", ["StringKnowledgeSource"]),
    ("crewgraph.knowledge.source.text_file_knowledge_source", ["TextFileKnowledgeSource"]),
    ("crewgraph.knowledge.source.pdf_knowledge_source", ["PDFKnowledgeSource"]),
    ("crewgraph.knowledge.source.csv_knowledge_source", ["CSVKnowledgeSource"]),
    ("crewgraph.knowledge.source.excel_knowledge_source", ["ExcelKnowledgeSource"]),
    ("crewgraph.knowledge.source.json_knowledge_source", ["JSONKnowledgeSource"]),
    ("crewgraph.events.types.knowledge_events", ["KnowledgeRetrievalStartedEvent", "KnowledgeQueryCompletedEvent"]),
    ("crewgraph.events.types.mcp_events", ["MCPConnectionStartedEvent", "MCPToolExecutionCompletedEvent"]),
]


# Run in the fresh interpreter: one JSON line per path, with why it failed ('' when it did not).
_CHECK = """
import importlib, json, sys, traceback
packages = json.loads(sys.argv[2])
for module, names in json.loads(sys.argv[1]):
    for loaded in [n for n in sys.modules if n.split(".")[0] in packages]:
        del sys.modules[loaded]
    try:
        m = importlib.import_module(module)
        missing = [n for n in names if getattr(m, n, None) is None]
        assert not missing, f"missing: {missing}"
        unlisted = [n for n in names if n not in m.__all__]
        assert not unlisted, f"not in __all__: {unlisted}"
        problem = ""
    except BaseException as exc:
        problem = traceback.format_exception_only(exc)[-1].strip()
    print(json.dumps([module, problem]), flush=True)
"""


def _import_each_first(paths: list[tuple[str, list[str]]], packages: tuple[str, ...] = ("crewgraph",),
                       env: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(path, its problem or '') for each path, imported with no module of ``packages`` loaded before it."""
    proc = subprocess.run([sys.executable, "-c", _CHECK, json.dumps(paths), json.dumps(packages)],
                          capture_output=True, text=True, timeout=120, env=env)
    done = [(module, why) for module, why in map(json.loads, proc.stdout.splitlines())]
    assert proc.returncode == 0 and [m for m, _ in done] == [m for m, _ in paths], proc.stderr[-3000:]
    return done


def test_every_crewai_import_path_imports_first_thing() -> None:
    problems = [(module, why) for module, why in _import_each_first(PATHS) if why]
    assert problems == []


def test_a_cycle_a_missing_path_and_a_missing_name_are_each_named(tmp_path: Path) -> None:
    """``a`` works only when ``b`` was imported before it: caught although ``b`` is checked first."""
    (tmp_path / "cyclepkg").mkdir()
    (tmp_path / "cyclepkg" / "__init__.py").write_text("")
    (tmp_path / "cyclepkg" / "a.py").write_text("import cyclepkg.b\n__all__ = ['A']\nA = 1\n")
    (tmp_path / "cyclepkg" / "b.py").write_text("from cyclepkg.a import A\n__all__ = ['B']\nB = A\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    found = _import_each_first([("cyclepkg.b", ["B"]), ("cyclepkg.a", ["A"]), ("cyclepkg.nope", ["X"]),
                                ("crewgraph.task", ["Task", "Nope"]), ("crewgraph.agent", ["Agent"])],
                               ("crewgraph", "cyclepkg"), env)
    assert [why.split(" (")[0] for _, why in found] == [
        "", "ImportError: cannot import name 'A' from partially initialized module 'cyclepkg.a'",
        "ModuleNotFoundError: No module named 'cyclepkg.nope'", "AssertionError: missing: ['Nope']", ""]
