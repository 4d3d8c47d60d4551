"""The lower-level chat pattern (CrewAI's ``crewai.flow.conversation``): ``ChatState``,
``ConversationalConfig``, ``ConversationalInputs`` and the message helpers.

``Flow[ChatState]`` is a plain flow whose state keeps the history
(``messages`` as ``{role, content}`` dicts); its methods call
``self.append_message(...)`` / ``self.receive_user_message(...)`` and route on
``state.last_intent``. ``ConversationalConfig`` holds class-level defaults
(intents, the intent LLM) a conversational flow's ``handle_turn`` uses.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, Field

__all__ = [
    "ChatState",
    "ConversationalConfig",
    "ConversationalInputs",
    "append_message",
    "get_conversation_messages",
    "get_conversational_config",
    "input_history_to_messages",
    "receive_user_message",
    "set_state_field",
]


class ConversationalInputs(TypedDict, total=False):
    """The conventional ``kickoff(inputs=...)`` keys of a chat turn."""

    id: str
    user_message: str | dict[str, Any]
    last_intent: str


@dataclass
class ConversationalConfig:
    """Class-level defaults for chat flows (``conversational_config = ConversationalConfig(...)``)."""

    default_intents: Sequence[str] | None = None
    intent_llm: str | None = None
    interactive_prompt: str = "You: "
    interactive_timeout: float | None = None
    exit_commands: Sequence[str] = field(default_factory=lambda: ("exit", "quit"))
    defer_trace_finalization: bool = True



class ChatState(BaseModel):
    """A persisted multi-turn state: the session ``id`` and the history as chat messages."""

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    messages: list[dict[str, Any]] = Field(default_factory=list)
    last_user_message: str | None = None
    last_intent: str | None = None
    session_ready: bool = False


def get_conversation_messages(flow: Any) -> list[dict[str, Any]]:
    """The history of ``flow`` (its state's messages, else its own buffer)."""
    return list(flow.conversation_messages)


def append_message(flow: Any, role: Literal["user", "assistant", "system", "tool"], content: str, **extra: Any) -> None:
    """``flow.append_message(...)``."""
    flow.append_message(role, content, **extra)


def set_state_field(flow: Any, name: str, value: Any) -> None:
    """Set ``name`` on a dict or model state that has it."""
    state = flow.state
    if isinstance(state, dict):
        state[name] = value
    elif hasattr(state, name):
        setattr(state, name, value)


def receive_user_message(flow: Any, text: str, *, outcomes: Sequence[str] | None = None, llm: Any = None) -> str:
    """``flow.receive_user_message(...)``."""
    return str(flow.receive_user_message(text, outcomes=outcomes, llm=llm))


def input_history_to_messages(entries: Sequence[Any]) -> list[dict[str, Any]]:
    """``ask()`` history entries (``{message, response}``) as chat messages."""
    messages: list[dict[str, Any]] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("message"):
            messages.append({"role": "assistant", "content": str(entry["message"])})
        if entry.get("response"):
            messages.append({"role": "user", "content": str(entry["response"])})
    return messages


def get_conversational_config(flow: Any) -> Any:
    """The class-level ``conversational_config`` of ``flow``, or None."""
    return getattr(type(flow), "conversational_config", None)
