"""What a hook sees and how it stops a call: the two contexts and the two errors.

A hook gets a context object, reads it, changes ``messages`` / ``tool_input`` in
place, and returns ``False`` (or raises :class:`HookAborted` with a reason) to
block the call. After-hooks return a string to replace the model's response or
the tool's result. Nodes hold configuration, not the facade objects, so the
context names the agent and task by small read-only records (``agent.role``,
``task.name``...) rather than handing over the live ``Agent``/``Task``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from crewgraph.errors import CrewGraphError
from crewgraph.hooks._human import DEFAULT_MESSAGE, ask_person

__all__ = [
    "HookAborted",
    "HookAgent",
    "HookTask",
    "LLMCallBlockedError",
    "LLMCallHookContext",
    "ToolCallHookContext",
]


class HookAborted(Exception):
    """Raised by a before-hook to block the call, saying why (and which hook, in ``source``)."""

    def __init__(self, reason: str, source: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.source = source


class LLMCallBlockedError(CrewGraphError, ValueError):
    """A before_llm_call hook blocked the call: the node fails and is not retried
    (a ValueError, as in CrewAI)."""

    retryable = False

    def __init__(self, message: str, *, reason: str = "", source: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.source = source


@dataclass(frozen=True)
class HookAgent:
    """The agent making the call, as a hook needs it (its role, goal and backstory)."""

    role: str
    goal: str = ""
    backstory: str = ""


@dataclass(frozen=True)
class HookTask:
    """The task the call is made for."""

    name: str
    description: str = ""
    expected_output: str = ""


@dataclass
class LLMCallHookContext:
    """One model call. ``messages`` is the list sent to the model: change it in place.

    ``response`` is set (the model's text) for after-hooks; ``iterations`` counts the
    agent's tool rounds so far; ``llm`` is the model object; ``crew`` the crew's name.
    """

    messages: list[dict[str, Any]]
    llm: Any = None
    agent: HookAgent | None = None
    task: HookTask | None = None
    crew: str | None = None
    iterations: int = 0
    response: str | None = None
    run_id: str = ""
    node_id: str = ""
    attempt: int = 1
    extra: dict[str, Any] = field(default_factory=dict)
    input_provider: Any = None
    """The crew's ``input_provider``: who answers :meth:`request_human_input` (None: the terminal)."""

    def request_human_input(self, prompt: str, default_message: str = DEFAULT_MESSAGE) -> str:
        """Ask a person (an approval gate, a debug stop) and return the answer, stripped ("" for
        Enter): the crew's ``input_provider`` answers, else the terminal (see ``hooks._human``)."""
        return ask_person(self.input_provider, prompt, default_message)


@dataclass
class ToolCallHookContext:
    """One tool call. ``tool_input`` is the arguments dict: change it in place.

    After-hooks also see ``tool_result`` (the text the agent will read) and
    ``raw_tool_result`` (what the tool returned, untouched by replacements).
    """

    tool_name: str
    tool_input: dict[str, Any]
    tool: Any = None
    agent: HookAgent | None = None
    task: HookTask | None = None
    crew: str | None = None
    tool_result: str | None = None
    raw_tool_result: Any = None
    blocked: bool = False
    run_id: str = ""
    node_id: str = ""
    attempt: int = 1
    input_provider: Any = None
    """The crew's ``input_provider``: who answers :meth:`request_human_input` (None: the terminal)."""

    def request_human_input(self, prompt: str, default_message: str = DEFAULT_MESSAGE) -> str:
        """Ask a person before or after the tool runs and return the answer, stripped ("" for
        Enter): the crew's ``input_provider`` answers, else the terminal (see ``hooks._human``)."""
        return ask_person(self.input_provider, prompt, default_message)
