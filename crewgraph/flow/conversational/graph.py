"""The built-in graph of a conversational flow and how a class turns it on.

A flow with ``conversational = True`` (or ``@ConversationConfig(...)``) gets
four methods unless it defines them itself: ``route_conversation`` (a start
router: takes the turn's pending user message into the state, then picks the
route -- ``route_turn``, a classified intent, ``answer_from_history`` when
that LLM is configured, else ``converse``), ``converse_turn`` (``converse``:
the conversation LLM over the history), ``end_conversation`` (``end``) and
``answer_from_history_turn``. They are ordinary decorated methods, so the
flow compiles them into its graph like any other and each turn is one run.
A method of the same name defined without a decorator keeps the built-in
trigger; one with its own decorator replaces the built-in entirely.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

__all__ = ["BUILTIN_METHODS", "enable_conversational"]

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant in an ongoing conversation. Answer the user's latest message using "
    "the conversation so far; be concise and accurate."
)


def route_conversation(self: Any) -> str:
    """Route the current turn to the label whose listener handles it."""
    self._apply_pending_turn()
    state = self.state
    context = self.build_router_context()
    route = self.route_turn(context)
    if not route:
        route = self._turn_intent
    if not route and self.can_answer_from_history(context):
        route = "answer_from_history"
    route = str(route or "converse")
    previous = state.last_intent
    state.last_intent = route
    self._emit_conversation("ConversationRouteSelectedEvent", route=route, user_message=state.current_user_message,
                            message_index=len(state.messages) - 1 if state.messages else None,
                            previous_intent=previous)
    return route


def converse_turn(self: Any) -> str:
    """Ordinary chat: the conversation LLM answers from the whole history."""
    llm = self._conversation_llm()
    if llm is None:
        content = "I can continue the conversation once an LLM is configured."
    else:
        messages: list[dict[str, Any]] = []
        system = self._system_prompt()
        if system:
            messages.append({"role": "system", "content": system})
        messages.extend(self.conversation_messages)
        content = self._stringify_result(self._coerce_llm(llm).call(messages))
    self.append_assistant_message(content)
    return content


def end_conversation(self: Any) -> str:
    """The user ends the conversation."""
    self.state.ended = True
    content = "Conversation ended."
    self.append_assistant_message(content)
    return content


def answer_from_history_turn(self: Any) -> str | None:
    """Answer from the history alone (when ``answer_from_history_llm`` is configured)."""
    config = self._conversation_config
    llm = getattr(config, "answer_from_history_llm", None)
    if llm is None:
        return None
    messages = [{"role": "system", "content": self._history_prompt()}, *self.build_agent_context("answer_from_history")]
    content = self._stringify_result(self._coerce_llm(llm).call(messages))
    self.append_assistant_message(content)
    return content


def _decorators() -> dict[str, Callable[[Any], Any]]:
    from crewgraph.flow.decorators import listen, router, start

    return {
        "route_conversation": lambda fn: start()(router()(fn)),
        "converse_turn": listen("converse"),
        "end_conversation": listen("end"),
        "answer_from_history_turn": listen("answer_from_history"),
    }


BUILTIN_METHODS: dict[str, Callable[..., Any]] = {
    "route_conversation": route_conversation,
    "converse_turn": converse_turn,
    "end_conversation": end_conversation,
    "answer_from_history_turn": answer_from_history_turn,
}


def _copy(fn: Callable[..., Any]) -> Callable[..., Any]:
    made = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    made.__doc__, made.__qualname__ = fn.__doc__, fn.__name__
    made.__annotations__ = dict(fn.__annotations__)
    return made


def add_builtin_methods(cls: type) -> None:
    """Give ``cls`` the built-in methods it does not define (decorated), keeping its own."""
    from crewgraph.flow.decorators import get_mark

    decorate = _decorators()
    for name, fn in BUILTIN_METHODS.items():
        own = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
        if own is not None and get_mark(own) is not None:
            continue  # the class (or a base) already has it in its graph
        setattr(cls, name, decorate[name](_copy(own if callable(own) else fn)))
    from crewgraph.flow.conversational.types import ConversationState
    from crewgraph.flow.state import state_type_from_bases

    if getattr(cls, "initial_state", None) is None and state_type_from_bases(cls) is None:
        cls.initial_state = ConversationState  # type: ignore[attr-defined]


def enable_conversational(cls: type) -> None:
    """Turn the conversational graph on for an already defined class (``@ConversationConfig``)."""
    cls.conversational = True  # type: ignore[attr-defined]
    add_builtin_methods(cls)
    from crewgraph.flow.flow import Flow

    if isinstance(cls, type) and issubclass(cls, Flow):
        Flow.__dict__["__init_subclass__"].__func__(cls)  # re-read and re-check its methods
