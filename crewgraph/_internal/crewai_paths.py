"""CrewAI's import paths in crewgraph: the one table every CrewAI-path module is served from.

Data only, so anything may import it cheaply (the mirror modules at CrewAI's paths, the opt-in
``crewai`` import alias in ``crewgraph.compat``, the conformance test). The path rule is
``crewai.X`` -> ``crewgraph.X``; the table is keyed by the crewgraph spelling.

``PATHS``          module -> {public name: where it lives}. The value is the real module
                   (``"crewgraph.outputs"``) or ``"module:attribute"`` when CrewAI's name differs
                   from ours. A mirror module is one line (``crewgraph._internal.facade``), and
                   a real package at a CrewAI path (``crewgraph.events``...) serves the extra
                   names listed for it here the same way. Names load on first access, so a
                   façade never imports more than is used.
                   The key ``"*"`` serves every name of a module's ``__all__`` (the
                   ``events.types.*`` façades mirror their event modules whole, so an event
                   added there appears at CrewAI's path without a second entry).
``ABSENT``         module -> {name: why crewgraph deliberately lacks it}; importing the name
                   raises ``ImportError`` with the reason (docs/porting.md lists them).
``ABSENT_MODULES`` whole CrewAI modules crewgraph lacks -> why (same ImportError on import).

The alias (``crewgraph.compat``) also reads, keyed by CrewAI's spelling:

``PACKAGES``       CrewAI's top-level packages -> the crewgraph package their modules map into.
``MODULES``        CrewAI modules whose crewgraph module is not the path rule's.
``NAMES``          names that carry CrewAI's name in CrewAI and crewgraph's in crewgraph.
``MOVED``          old paths real projects still use: importing works and warns, naming the new path.
"""

from __future__ import annotations

__all__ = ["ABSENT", "ABSENT_MODULES", "MODULES", "MOVED", "NAMES", "PACKAGES", "PATHS"]

_BUS = "crewgraph.events.bus"
_OUT = "crewgraph.outputs"
_STREAM = "crewgraph.streaming"
_TRAIN_EVENTS = "crewgraph.events.training_events"
_SKILL_EVENTS = "crewgraph.events.skill_events"
_TRAINING_FILES = "crewgraph._internal.training_files"
_ADAPTERS = "crewgraph.adapters"

PATHS: dict[str, dict[str, str]] = {
    # the top level: CrewAI's names beside crewgraph's own (crewgraph/__init__.py)
    "crewgraph": {"CrewBase": "crewgraph.project", "Knowledge": "crewgraph.knowledge",
                  "LLMGuardrail": "crewgraph.spec.guardrails", "PlanningConfig": "crewgraph.spec.planning_config",
                  "ExecutionContext": "crewgraph.context", "RuntimeState": "crewgraph.state.runtime"},
    # agents, tasks, crews
    "crewgraph.agent": {"Agent": "crewgraph.spec.agent", "CrewTrainingHandler": _TRAINING_FILES},
    # agents of other frameworks (crewgraph.adapters)
    "crewgraph.agents.agent_adapters": {
        "BaseAgentAdapter": f"{_ADAPTERS}.base",
        "BaseConverterAdapter": f"{_ADAPTERS}.base",
        "BaseToolAdapter": f"{_ADAPTERS}.base",
    },
    "crewgraph.agents.agent_adapters.base_agent_adapter": {"BaseAgentAdapter": f"{_ADAPTERS}.base"},
    "crewgraph.agents.agent_adapters.base_converter_adapter": {"BaseConverterAdapter": f"{_ADAPTERS}.base"},
    "crewgraph.agents.agent_adapters.base_tool_adapter": {"BaseToolAdapter": f"{_ADAPTERS}.base"},
    "crewgraph.agents.agent_adapters.langgraph": {},
    "crewgraph.agents.agent_adapters.langgraph.langgraph_adapter": {
        "LangGraphAgentAdapter": f"{_ADAPTERS}.langgraph_adapter",
    },
    "crewgraph.agents.agent_adapters.langgraph.langgraph_tool_adapter": {
        "LangGraphToolAdapter": f"{_ADAPTERS}.langgraph_adapter",
    },
    "crewgraph.agents.agent_adapters.langgraph.structured_output_converter": {
        "LangGraphConverterAdapter": f"{_ADAPTERS}.langgraph_adapter",
    },
    "crewgraph.agents.agent_adapters.openai_agents": {},
    "crewgraph.agents.agent_adapters.openai_agents.openai_adapter": {
        "OpenAIAgentAdapter": f"{_ADAPTERS}.openai_adapter",
    },
    "crewgraph.agents.agent_adapters.openai_agents.openai_agent_tool_adapter": {
        "OpenAIAgentToolAdapter": f"{_ADAPTERS}.openai_adapter",
    },
    "crewgraph.agents.agent_adapters.openai_agents.structured_output_converter": {
        "OpenAIConverterAdapter": f"{_ADAPTERS}.openai_adapter",
    },
    "crewgraph.agents": {"BaseAgent": "crewgraph.spec.base_agent"},
    "crewgraph.agents.tools": {"tool": "crewgraph.tools.function_tool"},
    "crewgraph.agents.agent_builder": {"BaseAgent": "crewgraph.spec.base_agent"},
    "crewgraph.agents.agent_builder.base_agent": {"BaseAgent": "crewgraph.spec.base_agent"},
    "crewgraph.task": {"Task": "crewgraph.spec.task", "BaseAgent": "crewgraph.spec.base_agent"},
    "crewgraph.tasks": {"OutputFormat": _OUT, "TaskOutput": _OUT},
    "crewgraph.tasks.task_output": {"TaskOutput": _OUT},
    "crewgraph.tasks.output_format": {"OutputFormat": _OUT},
    "crewgraph.tasks.conditional_task": {"ConditionalTask": "crewgraph.spec.conditional_task"},
    "crewgraph.process": {"Process": "crewgraph.spec.process"},
    "crewgraph.crew": {"BaseAgent": "crewgraph.spec.base_agent"},
    "crewgraph.crews": {"CrewOutput": _OUT},
    "crewgraph.crews.crew_output": {"CrewOutput": _OUT},
    # models
    "crewgraph.llms": {"BaseLLM": "crewgraph.llm.base"},
    "crewgraph.llms.base_llm": {
        "BaseLLM": "crewgraph.llm.base",
        "LLMCallBlockedError": "crewgraph.hooks.types",
    },
    "crewgraph.llms.hooks": {"BaseInterceptor": "crewgraph.llm.interceptor"},
    # types
    "crewgraph.types": {"UsageMetrics": _OUT},
    "crewgraph.types.usage_metrics": {"UsageMetrics": _OUT},
    "crewgraph.types.streaming": {
        "AsyncStreamSession": "crewgraph.streaming.session",
        "FlowStreamingOutput": "crewgraph.streaming.output",
        "StreamSession": "crewgraph.streaming.session",
        "StreamSessionBase": "crewgraph.streaming.session",
        "StreamingOutputBase": "crewgraph.streaming.output",
        "T": "crewgraph.streaming.output",
        "CrewStreamingOutput": _STREAM,
        "StreamChunk": _STREAM,
        "StreamChunkType": _STREAM,
        "StreamFrame": "crewgraph.streaming.frames",
        "ToolCallChunk": "crewgraph.streaming.chunks",
    },
    # MCP clients (crewgraph.tools.mcp)
    "crewgraph.mcp.transports": {
        "BaseTransport": "crewgraph.tools.mcp.transports",
        "HTTPTransport": "crewgraph.tools.mcp.transports",
        "SSETransport": "crewgraph.tools.mcp.transports",
        "StdioTransport": "crewgraph.tools.mcp.transports",
        "TransportType": "crewgraph.tools.mcp.transports",
    },
    "crewgraph.mcp.client": {"MCPClient": "crewgraph.tools.mcp.client"},
    "crewgraph.mcp.tool_resolver": {"MCPToolResolver": "crewgraph.tools.mcp.resolver"},
    # memory
    "crewgraph.memory.unified_memory": {"Memory": "crewgraph.memory.memory"},
    # events
    "crewgraph.events": {
        "CrewAIEventsBus": f"{_BUS}:CrewGraphEventsBus",
        "crewai_event_bus": f"{_BUS}:crewgraph_event_bus",
        # Crew.train / Crew.test and Agent Skills (crewgraph.training, crewgraph.skills)
        "CrewTestCompletedEvent": _TRAIN_EVENTS,
        "CrewTestFailedEvent": _TRAIN_EVENTS,
        "CrewTestResultEvent": _TRAIN_EVENTS,
        "CrewTestStartedEvent": _TRAIN_EVENTS,
        "CrewTrainCompletedEvent": _TRAIN_EVENTS,
        "CrewTrainFailedEvent": _TRAIN_EVENTS,
        "CrewTrainStartedEvent": _TRAIN_EVENTS,
        "TaskEvaluationEvent": _TRAIN_EVENTS,
        "SkillActivatedEvent": _SKILL_EVENTS,
        "SkillDiscoveryCompletedEvent": _SKILL_EVENTS,
        "SkillDiscoveryStartedEvent": _SKILL_EVENTS,
        "SkillEvent": _SKILL_EVENTS,
        "SkillLoadFailedEvent": _SKILL_EVENTS,
        "SkillLoadedEvent": _SKILL_EVENTS,
        "SkillUsedEvent": _SKILL_EVENTS,
    },
    "crewgraph.events.event_bus": {
        "CrewAIEventsBus": f"{_BUS}:CrewGraphEventsBus",
        "CrewGraphEventsBus": _BUS,
        "crewai_event_bus": f"{_BUS}:crewgraph_event_bus",
        "crewgraph_event_bus": _BUS,
    },
    "crewgraph.events.base_events": {"BaseEvent": "crewgraph.events.base"},
    "crewgraph.events.types.agent_events": {"*": "crewgraph.events.agent_events"},
    "crewgraph.events.types.crew_events": {
        "CrewBaseEvent": "crewgraph.events.crew_events",
        "CrewKickoffCompletedEvent": "crewgraph.events.crew_events",
        "CrewKickoffFailedEvent": "crewgraph.events.crew_events",
        "CrewKickoffStartedEvent": "crewgraph.events.crew_events",
        "CrewTestCompletedEvent": _TRAIN_EVENTS,
        "CrewTestFailedEvent": _TRAIN_EVENTS,
        "CrewTestResultEvent": _TRAIN_EVENTS,
        "CrewTestStartedEvent": _TRAIN_EVENTS,
        "CrewTrainCompletedEvent": _TRAIN_EVENTS,
        "CrewTrainFailedEvent": _TRAIN_EVENTS,
        "CrewTrainStartedEvent": _TRAIN_EVENTS,
    },
    "crewgraph.events.types.skill_events": {
        "SkillActivatedEvent": _SKILL_EVENTS,
        "SkillDiscoveryCompletedEvent": _SKILL_EVENTS,
        "SkillDiscoveryStartedEvent": _SKILL_EVENTS,
        "SkillEvent": _SKILL_EVENTS,
        "SkillLoadFailedEvent": _SKILL_EVENTS,
        "SkillLoadedEvent": _SKILL_EVENTS,
        "SkillUsedEvent": _SKILL_EVENTS,
    },
    "crewgraph.events.types.task_events": {
        "TaskEvaluationEvent": _TRAIN_EVENTS,
        "TaskCompletedEvent": "crewgraph.events.crew_events",
        "TaskFailedEvent": "crewgraph.events.crew_events",
        "TaskStartedEvent": "crewgraph.events.crew_events",
    },
    "crewgraph.events.types.flow_events": {
        "*": "crewgraph.events.flow_events",
        "ConversationMessageAddedEvent": "crewgraph.events.conversation_events",
        "ConversationRouteSelectedEvent": "crewgraph.events.conversation_events",
        "ConversationTurnCompletedEvent": "crewgraph.events.conversation_events",
        "ConversationTurnFailedEvent": "crewgraph.events.conversation_events",
        "ConversationTurnStartedEvent": "crewgraph.events.conversation_events",
    },
    "crewgraph.events.types.knowledge_events": {"*": "crewgraph.events.knowledge_events"},
    "crewgraph.events.types.llm_events": {"*": "crewgraph.events.llm_events"},
    "crewgraph.events.types.llm_guardrail_events": {"*": "crewgraph.events.guardrail_events"},
    "crewgraph.events.types.checkpoint_events": {"*": "crewgraph.events.checkpoint_events"},
    "crewgraph.events.types.observation_events": {"*": "crewgraph.events.observation_events"},
    "crewgraph.events.types.mcp_events": {"*": "crewgraph.events.mcp_events"},
    "crewgraph.events.types.memory_events": {"*": "crewgraph.events.memory_events"},
    "crewgraph.events.types.reasoning_events": {"*": "crewgraph.events.reasoning_events"},
    "crewgraph.events.types.tool_usage_events": {"*": "crewgraph.events.tool_events"},
    # tools
    "crewgraph.tools": {"EnvVar": "crewgraph.tools.env_vars"},
    "crewgraph.tools.base_tool": {"EnvVar": "crewgraph.tools.env_vars"},
    # utilities: crewgraph's storage locations under CrewAI's names
    "crewgraph.utilities": {},
    "crewgraph.utilities.paths": {"db_storage_path": "crewgraph._internal.storage"},
    "crewgraph.utilities.prompts": {"*": "crewgraph.spec.prompts"},
    "crewgraph.utilities.constants": {
        "KNOWLEDGE_DIRECTORY": "crewgraph._internal.storage",
        "TRAINED_AGENTS_DATA_FILE": _TRAINING_FILES,
        "TRAINING_DATA_FILE": _TRAINING_FILES,
    },
    # Crew.train / Crew.test (crewgraph.training)
    "crewgraph.utilities.file_handler": {"PickleHandler": _TRAINING_FILES},
    "crewgraph.utilities.training_handler": {"CrewTrainingHandler": _TRAINING_FILES},
    "crewgraph.utilities.evaluators": {},
    "crewgraph.utilities.evaluators.task_evaluator": {
        "Entity": "crewgraph.training.evaluation",
        "TaskEvaluation": "crewgraph.training.evaluation",
        "TaskEvaluator": "crewgraph.training.evaluation",
        "TrainingTaskEvaluation": "crewgraph.training.evaluation",
    },
    "crewgraph.utilities.evaluators.crew_evaluator_handler": {
        "CrewEvaluator": "crewgraph.training.crew_evaluator",
        "TaskEvaluationPydanticOutput": "crewgraph.training.crew_evaluator",
    },
}

_PLATFORM = ("its only endpoint is CrewAI AMP (crewai.com), and crewgraph runs crews locally with no client of "
             "that service: use the crew itself (Crew.kickoff), a crewgraph.tools.BaseTool or @tool that calls "
             "your own service, or MCPServerAdapter for a hosted tool server")
_NO_SERVER = ("its only protocol is {what}; no {server} runs on crewgraph's test machines ({why}), so a client "
              "could not be tested against the real thing or an honest stand-in. {instead}")
_COUCHBASE = _NO_SERVER.format(
    what="the couchbase SDK's Cluster (its C++ core bootstraps over Couchbase's extended memcached binary "
         "protocol: HELLO, SASL SCRAM, error map, cluster map; then bucket and index management over the "
         "cluster's REST API and the query over the Search service)",
    server="Couchbase Server", why="it is in neither Debian nor PyPI, and a fake of all three protocols that "
    "the SDK's core accepts would be a copy of Couchbase, not a stand-in",
    instead="Use QdrantVectorSearchTool or MongoDBVectorSearchTool, or wrap your own couchbase client's "
            "scope.search(...) in a crewgraph.tools.BaseTool.")
_DB2 = _NO_SERVER.format(
    what="IBM Db2's DRDA wire protocol through ibm_db and IBM's CLI driver", server="Db2 server",
    why="Db2 is in neither Debian nor PyPI",
    instead="Use NL2SQLTool with a SQLAlchemy Db2 URL (ibm_db_sa), or wrap ibm_db's VECTOR_DISTANCE query "
            "in a crewgraph.tools.BaseTool.")
_ORACLE = _NO_SERVER.format(
    what="Oracle Net (TNS) through python-oracledb, against the VECTOR type of Oracle Database 23ai",
    server="Oracle Database", why="Oracle Database is in neither Debian nor PyPI",
    instead="Use NL2SQLTool with an oracle+oracledb:// SQLAlchemy URL, or wrap your oracledb VECTOR_DISTANCE "
            "query in a crewgraph.tools.BaseTool.")

ABSENT: dict[str, dict[str, str]] = {
    "crewgraph.toolkit": {
        "CrewaiPlatformTools": "it loads the actions of a CrewAI AMP (crewai.com) account; " + _PLATFORM,
        "EnterpriseActionTool": "it runs an action of a CrewAI AMP (crewai.com) account; " + _PLATFORM,
        "GenerateCrewaiAutomationTool": "it asks CrewAI AMP (crewai.com) to generate a hosted automation; "
                                        + _PLATFORM,
        "InvokeCrewAIAutomationTool": "it starts a crew deployed on CrewAI AMP (crewai.com); " + _PLATFORM,
        "CouchbaseFTSVectorSearchTool": _COUCHBASE,
        "DB2VectorSearchTool": _DB2,
        "DB2ToolSchema": _DB2,
        "OracleVectorSearchTool": _ORACLE,
        "OracleToolSchema": _ORACLE,
        "OracleVectorSearchConfig": _ORACLE,
        "OracleVectorSearchQueryConfig": _ORACLE,
    },
}

ABSENT_MODULES: dict[str, str] = {}

PACKAGES: dict[str, str] = {
    "crewai": "crewgraph",
    "crewai_tools": "crewgraph.toolkit",
}
"""CrewAI's top-level packages and the crewgraph package each one's modules map into."""

MODULES: dict[str, str] = {
    # CrewAI's pre-1.0 home of the events, still re-exported by CrewAI and used by real projects.
    "crewai.utilities.events": "crewgraph.events",
    "crewai.utilities.events.base_event_listener": "crewgraph.events.base_event_listener",
    "crewai.utilities.events.crewai_event_bus": "crewgraph.events.event_bus",
}
"""CrewAI modules whose crewgraph module is not the path rule's (CrewAI path -> crewgraph module)."""

NAMES: dict[str, str] = {
    "crewai_event_bus": "crewgraph_event_bus",
    "CrewAIEventsBus": "CrewGraphEventsBus",
}
"""Names that carry CrewAI's name in CrewAI and crewgraph's in crewgraph (CrewAI name -> ours)."""

MOVED: dict[str, dict[str, str]] = {
    # CrewAI's examples still write `from crewai_tools import BaseTool`; the class lives in crewai.tools.
    "crewai_tools": {"BaseTool": "crewai.tools", "tool": "crewai.tools"},
}
"""Old paths real projects still use: CrewAI module -> {name: CrewAI module it moved to}.
Importing a name from its old path works and warns (DeprecationWarning) naming the new path."""
