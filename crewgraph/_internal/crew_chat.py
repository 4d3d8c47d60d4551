"""CrewAI's ``crew_chat_messages`` kickoff input: the conversation that led to the kickoff.

A crew started from a chat (CrewAI's ``crewai chat``, or any app that keeps one) passes the
conversation so far as ``inputs["crew_chat_messages"]``: a JSON list of ``{"role", "content"}``
messages. Each task then reads it after its description, under an instruction to use it, as
in CrewAI (``Task.interpolate_inputs_and_add_conversation_history``). Messages without a role
or content are left out, as CrewAI does; text that is not a JSON list is refused by name.
"""

from __future__ import annotations

import functools
import json
from typing import Any

__all__ = ["CHAT_MESSAGES_KEY", "CONVERSATION_INSTRUCTION", "conversation_history", "with_conversation"]

CHAT_MESSAGES_KEY = "crew_chat_messages"

CONVERSATION_INSTRUCTION = (
    "This task is one step of a crew working for the user. The conversation with the user that "
    "led to this crew's run is below: use what it says (facts, wishes, corrections) in doing the "
    "task, so the answer fits both the task and what the user asked for."
)


def conversation_history(value: Any) -> str:
    """``Role: content`` lines of the messages in ``value`` (a JSON text, or a list already).

    Raises ValueError naming the input when it is not a JSON list of messages. A JSON text is
    read once per kickoff, not once per task (every task of the run asks for the same one)."""
    if isinstance(value, str):
        return _history_of_text(value)
    return _history(value)


@functools.lru_cache(maxsize=8)
def _history_of_text(value: str) -> str:
    return _history(value)


def _history(value: Any) -> str:
    messages = value
    if not isinstance(value, list):
        try:
            messages = json.loads(str(value))
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"kickoff input {CHAT_MESSAGES_KEY!r} is not JSON ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno}): give a JSON list of {{\"role\": ..., \"content\": ...}} messages") from exc
    if not isinstance(messages, list):
        raise ValueError(f"kickoff input {CHAT_MESSAGES_KEY!r} is a JSON {type(messages).__name__}, "
                         "not a list of {\"role\": ..., \"content\": ...} messages")
    return "\n".join(f"{str(m['role']).capitalize()}: {m['content']}"
                     for m in messages if isinstance(m, dict) and "role" in m and "content" in m)


def with_conversation(description: str, inputs: dict[str, Any]) -> str:
    """``description`` followed by the instruction and the conversation, when the inputs hold one."""
    value = inputs.get(CHAT_MESSAGES_KEY) if inputs else None
    if not value:
        return description
    return f"{description}\n\n{CONVERSATION_INSTRUCTION}\n\n{conversation_history(value)}"
