"""The data of a conversational flow: its state, its messages and its configuration.

CrewAI's shapes and names (``crewai.flow.conversational`` /
``crewai.experimental.conversational``): ``ConversationState`` is the
persisted state of one chat session (``id`` is the session id; ``messages``
the user-visible history; ``events``/``agent_threads`` agents' scratch work),
``ConversationConfig`` the class-level settings (also a class decorator that
turns the conversational graph on), ``RouterConfig`` the LLM router's.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AgentMessage",
    "ConversationConfig",
    "ConversationEvent",
    "ConversationMessage",
    "ConversationMessageRole",
    "ConversationState",
    "RouterConfig",
    "message_to_llm_dict",
]

ConversationMessageRole = Literal["user", "assistant", "system", "tool"]


@dataclass
class RouterConfig:
    """How the router LLM picks a turn's route; ``routes`` default to the flow's listener labels,
    described by ``route_descriptions``, else the handler's docstring's first line."""

    prompt: str | None = None
    response_format: type[BaseModel] | None = None
    llm: Any | None = None
    routes: Sequence[str] | None = None
    route_descriptions: dict[str, str] | None = None
    default_intent: str | None = "converse"
    fallback_intent: str | None = "converse"
    intent_field: str = "intent"


@dataclass
class ConversationConfig:
    """Settings of a conversational flow; ``@ConversationConfig(...)`` on the class also sets
    ``conversational = True``. ``system_prompt=None`` uses crewgraph's default prompt, ``""`` none."""

    system_prompt: str | None = None
    llm: Any | None = None
    router: RouterConfig | None = None
    answer_from_history_prompt: str | None = None
    default_intents: Sequence[str] | None = None
    intent_llm: Any | None = None
    answer_from_history_llm: Any | None = None
    visible_agent_outputs: Sequence[str] | Literal["all"] | None = None
    defer_trace_finalization: bool = True
    trace_scope: Literal["turn", "session"] | None = None

    def __call__(self, flow_cls: type[Any]) -> type[Any]:
        from crewgraph.flow.conversational.graph import enable_conversational

        flow_cls.conversational_config = self
        enable_conversational(flow_cls)
        return flow_cls


class ConversationMessage(BaseModel):
    """One user-visible message of the session's history."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    role: ConversationMessageRole
    content: str | list[dict[str, Any]] | None
    name: str | None = None
    tool_call_id: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    files: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class AgentMessage(BaseModel):
    """A private message or result of one agent (``state.agent_threads[name]``)."""

    role: ConversationMessageRole | str = "assistant"
    content: Any
    metadata: dict[str, Any] = Field(default_factory=dict)


class ConversationEvent(BaseModel):
    """A structured record of the turn, apart from the user-visible messages."""

    type: str
    payload: dict[str, Any] = Field(default_factory=dict)
    agent_name: str | None = None
    visibility: Literal["private", "public"] = "private"


class ConversationState(BaseModel):
    """The state of a conversational flow: one chat session."""

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    messages: list[ConversationMessage] = Field(default_factory=list)
    current_user_message: str | None = None
    last_user_message: str | None = None
    last_intent: str | None = None
    ended: bool = False
    events: list[ConversationEvent] = Field(default_factory=list)
    agent_threads: dict[str, list[AgentMessage]] = Field(default_factory=dict)
    session_ready: bool = False


def message_to_llm_dict(message: Any) -> dict[str, Any]:
    """A stored message as an LLM chat message (``metadata`` and unset fields left out)."""
    if isinstance(message, BaseModel):
        data = message.model_dump(exclude_none=True)
    elif isinstance(message, dict):
        data = dict(message)
    else:
        data = {"role": "user", "content": str(message)}
    return {k: v for k, v in data.items() if k != "metadata"}
