"""Typed events and the event bus (``crewgraph_event_bus``).

Subscribe with ``@crewgraph_event_bus.on(TaskCompletedEvent)``; handlers get
``(source, event)``.
"""

# Names load on first access: importing the bus (every node does) must not build every
# event model of every family.

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph._internal.crewai_paths import PATHS as _PATHS
from crewgraph._internal.facade import facade_getattr, public_names

if TYPE_CHECKING:
    from crewgraph.events.agent_events import (
        AgentExecutionCompletedEvent,
        AgentExecutionErrorEvent,
        AgentExecutionStartedEvent,
    )
    from crewgraph.events.base import BaseEvent
    from crewgraph.events.base_event_listener import BaseEventListener
    from crewgraph.events.bus import CrewGraphEventsBus, Depends, EventHandler, crewgraph_event_bus
    from crewgraph.events.conversation_events import (
        ConversationMessageAddedEvent,
        ConversationRouteSelectedEvent,
        ConversationTurnCompletedEvent,
        ConversationTurnFailedEvent,
        ConversationTurnStartedEvent,
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
        FlowInputReceivedEvent,
        FlowInputRequestedEvent,
        FlowPausedEvent,
        FlowStartedEvent,
        HumanFeedbackReceivedEvent,
        HumanFeedbackRequestedEvent,
        MethodExecutionFailedEvent,
        MethodExecutionFinishedEvent,
        MethodExecutionStartedEvent,
    )
    from crewgraph.events.guardrail_events import GuardrailCompletedEvent, GuardrailStartedEvent
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
    from crewgraph.events.reasoning_events import (
        AgentReasoningCompletedEvent,
        AgentReasoningFailedEvent,
        AgentReasoningStartedEvent,
    )
    from crewgraph.events.tool_events import (
        ToolFailureDetectedEvent,
        ToolUsageErrorEvent,
        ToolUsageFinishedEvent,
        ToolUsageStartedEvent,
    )

_EXPORTS = {
    "AgentExecutionCompletedEvent": "crewgraph.events.agent_events",
    "AgentExecutionErrorEvent": "crewgraph.events.agent_events",
    "AgentExecutionStartedEvent": "crewgraph.events.agent_events",
    "AgentReasoningCompletedEvent": "crewgraph.events.reasoning_events",
    "AgentReasoningFailedEvent": "crewgraph.events.reasoning_events",
    "AgentReasoningStartedEvent": "crewgraph.events.reasoning_events",
    "BaseEvent": "crewgraph.events.base",
    "BaseEventListener": "crewgraph.events.base_event_listener",
    "CrewGraphEventsBus": "crewgraph.events.bus",
    "CrewKickoffCompletedEvent": "crewgraph.events.crew_events",
    "CrewKickoffFailedEvent": "crewgraph.events.crew_events",
    "CrewKickoffStartedEvent": "crewgraph.events.crew_events",
    "Depends": "crewgraph.events.bus",
    "EventHandler": "crewgraph.events.bus",
    "ConversationMessageAddedEvent": "crewgraph.events.conversation_events",
    "ConversationRouteSelectedEvent": "crewgraph.events.conversation_events",
    "ConversationTurnCompletedEvent": "crewgraph.events.conversation_events",
    "ConversationTurnFailedEvent": "crewgraph.events.conversation_events",
    "ConversationTurnStartedEvent": "crewgraph.events.conversation_events",
    "FlowFinishedEvent": "crewgraph.events.flow_events",
    "FlowInputReceivedEvent": "crewgraph.events.flow_events",
    "FlowInputRequestedEvent": "crewgraph.events.flow_events",
    "FlowPausedEvent": "crewgraph.events.flow_events",
    "FlowStartedEvent": "crewgraph.events.flow_events",
    "GuardrailCompletedEvent": "crewgraph.events.guardrail_events",
    "HumanFeedbackReceivedEvent": "crewgraph.events.flow_events",
    "HumanFeedbackRequestedEvent": "crewgraph.events.flow_events",
    "GuardrailStartedEvent": "crewgraph.events.guardrail_events",
    "KnowledgeQueryCompletedEvent": "crewgraph.events.knowledge_events",
    "KnowledgeQueryFailedEvent": "crewgraph.events.knowledge_events",
    "KnowledgeQueryStartedEvent": "crewgraph.events.knowledge_events",
    "KnowledgeRetrievalCompletedEvent": "crewgraph.events.knowledge_events",
    "KnowledgeRetrievalStartedEvent": "crewgraph.events.knowledge_events",
    "KnowledgeSearchQueryFailedEvent": "crewgraph.events.knowledge_events",
    "LLMCallCompletedEvent": "crewgraph.events.llm_events",
    "LLMCallFailedEvent": "crewgraph.events.llm_events",
    "LLMCallRetryEvent": "crewgraph.events.llm_events",
    "LLMCallStartedEvent": "crewgraph.events.llm_events",
    "LLMStreamChunkEvent": "crewgraph.events.llm_events",
    "MCPConnectionCompletedEvent": "crewgraph.events.mcp_events",
    "MCPConnectionFailedEvent": "crewgraph.events.mcp_events",
    "MCPConnectionStartedEvent": "crewgraph.events.mcp_events",
    "MCPToolExecutionCompletedEvent": "crewgraph.events.mcp_events",
    "MCPToolExecutionFailedEvent": "crewgraph.events.mcp_events",
    "MCPToolExecutionStartedEvent": "crewgraph.events.mcp_events",
    "MemoryQueryCompletedEvent": "crewgraph.events.memory_events",
    "MemoryQueryFailedEvent": "crewgraph.events.memory_events",
    "MemoryQueryStartedEvent": "crewgraph.events.memory_events",
    "MemoryRetrievalCompletedEvent": "crewgraph.events.memory_events",
    "MemoryRetrievalStartedEvent": "crewgraph.events.memory_events",
    "MemorySaveCompletedEvent": "crewgraph.events.memory_events",
    "MemorySaveFailedEvent": "crewgraph.events.memory_events",
    "MemorySaveStartedEvent": "crewgraph.events.memory_events",
    "MethodExecutionFailedEvent": "crewgraph.events.flow_events",
    "MethodExecutionFinishedEvent": "crewgraph.events.flow_events",
    "MethodExecutionStartedEvent": "crewgraph.events.flow_events",
    "NodeFailedEvent": "crewgraph.events.node_events",
    "NodeFinishedEvent": "crewgraph.events.node_events",
    "NodeRetriedEvent": "crewgraph.events.node_events",
    "NodeSkippedEvent": "crewgraph.events.node_events",
    "NodeStartedEvent": "crewgraph.events.node_events",
    "TaskCompletedEvent": "crewgraph.events.crew_events",
    "TaskFailedEvent": "crewgraph.events.crew_events",
    "TaskStartedEvent": "crewgraph.events.crew_events",
    "ToolFailureDetectedEvent": "crewgraph.events.tool_events",
    "ToolUsageErrorEvent": "crewgraph.events.tool_events",
    "ToolUsageFinishedEvent": "crewgraph.events.tool_events",
    "ToolUsageStartedEvent": "crewgraph.events.tool_events",
    "crewgraph_event_bus": "crewgraph.events.bus",
}

__all__ = [
    "AgentExecutionCompletedEvent",
    "AgentExecutionErrorEvent",
    "AgentExecutionStartedEvent",
    "AgentReasoningCompletedEvent",
    "AgentReasoningFailedEvent",
    "AgentReasoningStartedEvent",
    "BaseEvent",
    "BaseEventListener",
    "ConversationMessageAddedEvent",
    "ConversationRouteSelectedEvent",
    "ConversationTurnCompletedEvent",
    "ConversationTurnFailedEvent",
    "ConversationTurnStartedEvent",
    "CrewGraphEventsBus",
    "CrewKickoffCompletedEvent",
    "CrewKickoffFailedEvent",
    "CrewKickoffStartedEvent",
    "Depends",
    "EventHandler",
    "FlowFinishedEvent",
    "FlowInputReceivedEvent",
    "FlowInputRequestedEvent",
    "FlowPausedEvent",
    "FlowStartedEvent",
    "GuardrailCompletedEvent",
    "GuardrailStartedEvent",
    "HumanFeedbackReceivedEvent",
    "HumanFeedbackRequestedEvent",
    "KnowledgeQueryCompletedEvent",
    "KnowledgeQueryFailedEvent",
    "KnowledgeQueryStartedEvent",
    "KnowledgeRetrievalCompletedEvent",
    "KnowledgeRetrievalStartedEvent",
    "KnowledgeSearchQueryFailedEvent",
    "LLMCallCompletedEvent",
    "LLMCallFailedEvent",
    "LLMCallRetryEvent",
    "LLMCallStartedEvent",
    "LLMStreamChunkEvent",
    "MCPConnectionCompletedEvent",
    "MCPConnectionFailedEvent",
    "MCPConnectionStartedEvent",
    "MCPToolExecutionCompletedEvent",
    "MCPToolExecutionFailedEvent",
    "MCPToolExecutionStartedEvent",
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


# CrewAI's names for the same things (``crewai_event_bus``...), from the path table.
__all__ = public_names({*__all__, *_PATHS[__name__]})

__getattr__ = facade_getattr(__name__, _EXPORTS)
