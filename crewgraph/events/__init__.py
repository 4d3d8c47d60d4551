"""Typed events and the event bus (``crewgraph_event_bus``).

Subscribe with ``@crewgraph_event_bus.on(TaskCompletedEvent)``; handlers get
``(source, event)``.
"""

from crewgraph.events.agent_events import (
    AgentExecutionCompletedEvent,
    AgentExecutionErrorEvent,
    AgentExecutionStartedEvent,
)
from crewgraph.events.base import (
    BaseEvent,
)
from crewgraph.events.base_event_listener import (
    BaseEventListener,
)
from crewgraph.events.bus import (
    CrewGraphEventsBus,
    EventHandler,
    crewgraph_event_bus,
)
from crewgraph.events.crew_events import (
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
    TaskCompletedEvent,
    TaskFailedEvent,
    TaskStartedEvent,
)
from crewgraph.events.flow_events import (
    FlowFinishedEvent,
    FlowStartedEvent,
    MethodExecutionFailedEvent,
    MethodExecutionFinishedEvent,
    MethodExecutionStartedEvent,
)
from crewgraph.events.guardrail_events import (
    GuardrailCompletedEvent,
    GuardrailStartedEvent,
)
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallRetryEvent,
    LLMCallStartedEvent,
    LLMStreamChunkEvent,
)
from crewgraph.events.memory_events import (
    MemoryQueryCompletedEvent,
    MemoryQueryFailedEvent,
    MemoryQueryStartedEvent,
    MemoryRetrievalCompletedEvent,
    MemoryRetrievalStartedEvent,
    MemorySaveCompletedEvent,
    MemorySaveFailedEvent,
    MemorySaveStartedEvent,
)
from crewgraph.events.node_events import (
    NodeFailedEvent,
    NodeFinishedEvent,
    NodeRetriedEvent,
    NodeSkippedEvent,
    NodeStartedEvent,
)
from crewgraph.events.tool_events import (
    ToolFailureDetectedEvent,
    ToolUsageErrorEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
)

__all__ = [
    "AgentExecutionCompletedEvent",
    "AgentExecutionErrorEvent",
    "AgentExecutionStartedEvent",
    "BaseEvent",
    "BaseEventListener",
    "CrewGraphEventsBus",
    "CrewKickoffCompletedEvent",
    "CrewKickoffFailedEvent",
    "CrewKickoffStartedEvent",
    "EventHandler",
    "FlowFinishedEvent",
    "FlowStartedEvent",
    "GuardrailCompletedEvent",
    "GuardrailStartedEvent",
    "LLMCallCompletedEvent",
    "LLMCallFailedEvent",
    "LLMCallRetryEvent",
    "LLMCallStartedEvent",
    "LLMStreamChunkEvent",
    "MemoryQueryCompletedEvent",
    "MemoryQueryFailedEvent",
    "MemoryQueryStartedEvent",
    "MemoryRetrievalCompletedEvent",
    "MemoryRetrievalStartedEvent",
    "MemorySaveCompletedEvent",
    "MemorySaveFailedEvent",
    "MemorySaveStartedEvent",
    "MethodExecutionFailedEvent",
    "MethodExecutionFinishedEvent",
    "MethodExecutionStartedEvent",
    "NodeFailedEvent",
    "NodeFinishedEvent",
    "NodeRetriedEvent",
    "NodeSkippedEvent",
    "NodeStartedEvent",
    "TaskCompletedEvent",
    "TaskFailedEvent",
    "TaskStartedEvent",
    "ToolFailureDetectedEvent",
    "ToolUsageErrorEvent",
    "ToolUsageFinishedEvent",
    "ToolUsageStartedEvent",
    "crewgraph_event_bus",
]
