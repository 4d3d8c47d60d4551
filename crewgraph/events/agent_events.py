"""Events of an agent working: a task (one agent_step node), a lite-agent kickoff
(``Agent.kickoff`` / ``LiteAgent``), an agent evaluation, and the verbose agent logs."""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = [
    "AgentEvaluationCompletedEvent",
    "AgentEvaluationFailedEvent",
    "AgentEvaluationStartedEvent",
    "AgentExecutionCompletedEvent",
    "AgentExecutionErrorEvent",
    "AgentExecutionStartedEvent",
    "AgentLogsExecutionEvent",
    "AgentLogsStartedEvent",
    "LiteAgentExecutionCompletedEvent",
    "LiteAgentExecutionErrorEvent",
    "LiteAgentExecutionStartedEvent",
]


class AgentExecutionStartedEvent(BaseEvent):
    """An agent starts a task. ``agent``/``task``: the objects when the emitter has them
    (JSON gets ``{"id", "role"/"name"}``); ``tools``: the names of its tools."""

    type: str = "agent_execution_started"
    agent: Any = None
    task: Any = None
    task_prompt: str | None = None
    tools: list[Any] | None = []


class AgentExecutionCompletedEvent(BaseEvent):
    type: str = "agent_execution_completed"
    agent: Any = None
    task: Any = None
    output: str = ""
    iterations: int = 0


class AgentExecutionErrorEvent(BaseEvent):
    type: str = "agent_execution_error"
    agent: Any = None
    task: Any = None
    error: str


class LiteAgentExecutionStartedEvent(BaseEvent):
    """``Agent.kickoff(messages)`` (an agent run outside a crew) starts. ``agent_info``:
    the agent's role, goal, backstory and tool names."""

    type: str = "lite_agent_execution_started"
    agent_info: dict[str, Any]
    messages: str | list[dict[str, Any]]
    tools: list[Any] | None = None


class LiteAgentExecutionCompletedEvent(BaseEvent):
    type: str = "lite_agent_execution_completed"
    agent_info: dict[str, Any]
    output: str


class LiteAgentExecutionErrorEvent(BaseEvent):
    type: str = "lite_agent_execution_error"
    agent_info: dict[str, Any]
    error: str


class AgentEvaluationStartedEvent(BaseEvent):
    """An agent evaluator starts scoring one iteration of an agent's work."""

    type: str = "agent_evaluation_started"
    iteration: int


class AgentEvaluationCompletedEvent(BaseEvent):
    type: str = "agent_evaluation_completed"
    iteration: int
    metric_category: Any
    score: Any


class AgentEvaluationFailedEvent(BaseEvent):
    type: str = "agent_evaluation_failed"
    iteration: int
    error: str


class AgentLogsStartedEvent(BaseEvent):
    """A verbose agent begins a task (the console prints its header)."""

    type: str = "agent_logs_started"
    task_description: str | None = None
    verbose: bool = False


class AgentLogsExecutionEvent(BaseEvent):
    """A verbose agent's step: ``formatted_answer`` is the step's answer (text, a tool call or
    the final answer)."""

    type: str = "agent_logs_execution"
    formatted_answer: Any
    verbose: bool = False
