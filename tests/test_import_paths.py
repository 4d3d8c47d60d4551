"""CrewAI's import paths: every one a real project or template uses exists as a thin module.

Each path is imported first thing in a fresh interpreter, so a module that only
works when something else was imported before it (an import cycle) fails here.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

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


def _import_fresh(module: str, names: list[str]) -> str:
    """'' when ``module`` imports first thing in a new interpreter and has ``names``, else why not."""
    code = (
        f"import importlib; m = importlib.import_module({module!r}); names = {names!r}\n"
        "missing = [n for n in names if getattr(m, n, None) is None]\n"
        "assert not missing, f'missing: {missing}'\n"
        "unlisted = [n for n in names if n not in m.__all__]\n"
        "assert not unlisted, f'not in __all__: {unlisted}'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return "" if proc.returncode == 0 else f"{module}: {proc.stderr.strip().splitlines()[-1:]}"


def test_every_crewai_import_path_imports_in_a_fresh_interpreter() -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = [p for p in pool.map(lambda item: _import_fresh(*item), PATHS) if p]
    assert problems == []
