"""The conversational API of ``Flow``: ``handle_turn``, ``chat``, ``stream_turn`` and their helpers.

A turn is one ``kickoff`` -- one run of the flow's executed graph, with its
own run id, events, checkpoints and run graph. ``handle_turn(message,
session_id=...)`` stashes the message, kicks the flow off for the session
(``inputs={"id": session_id}``: a persisted flow restores the session's
state, so a later turn in another process continues it), and the built-in
``route_conversation`` start method takes the message into the state before
routing. A handler that only *returns* its reply gets it appended to the
history (and saved again) after the run. Without persistence the session
lives in the instance: a turn of the same session carries the state on.
Methods are no-ops for flows that are not conversational (``handle_turn``,
``stream_turn`` and ``chat`` raise ``ValueError``), as in CrewAI.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

__all__ = ["ConversationalMixin"]

_HISTORY_PROMPT = (
    "Answer the user's latest message from the conversation history alone, without tools or other work."
)


class ConversationalMixin:
    """Chat turns on a Flow (mixed into :class:`~crewgraph.flow.Flow`)."""

    conversational: ClassVar[bool] = False
    conversational_config: ClassVar[Any] = None
    builtin_routes: ClassVar[tuple[str, ...]] = ("converse", "end")
    internal_routes: ClassVar[tuple[str, ...]] = ("answer_from_history",)
    builtin_route_descriptions: ClassVar[dict[str, str]] = {
        "converse": "Ordinary chat, follow-ups, summaries, clarifications, and questions answerable "
                    "from prior conversation history.",
        "end": "User signals the conversation is finished (goodbye, exit, done).",
        "answer_from_history": "Answer directly from prior conversation history without invoking tools, "
                               "agents, or custom routes.",
    }

    state: Any
    _state: Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if cls.__dict__.get("conversational") is True or (
            getattr(cls, "conversational", False) and "route_conversation" not in cls.__dict__
        ):
            from crewgraph.flow.conversational.graph import add_builtin_methods

            add_builtin_methods(cls)
        super().__init_subclass__(**kwargs)

    # ------------------------------------------------------------------ turns
    def _require_conversational(self, what: str) -> None:
        if not type(self).conversational:
            raise ValueError(f"Flow.{what}() is only available on conversational flows "
                             "(set conversational = True, or decorate the class with @ConversationConfig(...))")

    def _turn_inputs(self, sid: str) -> dict[str, Any]:
        from crewgraph.flow.state import state_to_dict

        if getattr(self, "_turn_session", None) == sid and not self._persistence_plan():  # type: ignore[attr-defined]
            return state_to_dict(self._state)  # no store: the session lives in this instance
        return {"id": sid}

    def _begin_turn(self, message: Any, session_id: str | None, intents: Any, intent_llm: Any) -> str:
        sid = session_id or str(getattr(self.state, "id", "") or self.state.get("id"))
        self.__dict__["_pending_turn"] = (message, list(intents) if intents else None, intent_llm)
        self.__dict__["_turn_intent"] = None
        self.__dict__["_reply_appended"] = False
        self.__dict__["_turn_recorded"] = []
        return sid

    def _finish_turn(self, sid: str, result: Any) -> None:
        self.__dict__["_turn_session"] = sid
        if result is None or self.__dict__.get("_reply_appended") or not self._is_public_result(result):
            return
        self.append_assistant_message(self._stringify_result(result))
        from crewgraph.flow.persistence import save

        for store, verbose in dict.fromkeys(self._persistence_plan().values()):  # type: ignore[attr-defined]
            save(store, sid, "handle_turn", self._state, verbose)

    def _emit_conversation(self, kind: str, **fields: Any) -> None:
        """Publish one of :mod:`crewgraph.events.conversation_events` for this session."""
        from crewgraph.events import conversation_events
        from crewgraph.events.bus import crewgraph_event_bus

        state = self._state
        sid = fields.pop("session_id", None) or str(getattr(state, "id", None) or (state.get("id") if isinstance(state, dict) else ""))
        event = getattr(conversation_events, kind)(flow_name=self.flow_name, session_id=sid, **fields)  # type: ignore[attr-defined]
        event.run_id = getattr(self, "_run_id", None)
        crewgraph_event_bus.emit(self, event)

    def _run_turn(self, sid: str, run: Callable[[], Any]) -> Any:
        self._emit_conversation("ConversationTurnStartedEvent", session_id=sid)
        self.__dict__["_fresh_run"] = True
        try:
            result = run()
        except Exception as exc:
            self._emit_conversation("ConversationTurnFailedEvent", session_id=sid, error=f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self.__dict__["_pending_turn"] = None
            self.__dict__["_fresh_run"] = False
        self._finish_turn(sid, result)
        self._emit_conversation("ConversationTurnCompletedEvent", session_id=sid)
        return result

    def handle_turn(
        self,
        message: str,
        *,
        session_id: str | None = None,
        intents: Sequence[str] | None = None,
        intent_llm: Any = None,
        **kickoff_kwargs: Any,
    ) -> Any:
        """Run one turn of the session ``session_id`` (default: this state's id) for the user's
        ``message`` and return the handler's output."""
        self._require_conversational("handle_turn")
        sid = self._begin_turn(message, session_id, intents, intent_llm)
        return self._run_turn(sid, lambda: self.kickoff(inputs=self._turn_inputs(sid), **kickoff_kwargs))  # type: ignore[attr-defined]

    async def handle_turn_async(self, message: str, *, session_id: str | None = None,
                                intents: Sequence[str] | None = None, intent_llm: Any = None,
                                **kickoff_kwargs: Any) -> Any:
        """:meth:`handle_turn` on the current event loop."""
        self._require_conversational("handle_turn")
        sid = self._begin_turn(message, session_id, intents, intent_llm)
        self._emit_conversation("ConversationTurnStartedEvent", session_id=sid)
        self.__dict__["_fresh_run"] = True
        try:
            result = await self.kickoff_async(inputs=self._turn_inputs(sid), **kickoff_kwargs)  # type: ignore[attr-defined]
        except Exception as exc:
            self._emit_conversation("ConversationTurnFailedEvent", session_id=sid, error=f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self.__dict__["_pending_turn"] = None
            self.__dict__["_fresh_run"] = False
        self._finish_turn(sid, result)
        self._emit_conversation("ConversationTurnCompletedEvent", session_id=sid)
        return result

    def stream_turn(self, message: str, *, session_id: str | None = None, intents: Sequence[str] | None = None,
                    intent_llm: Any = None, **kickoff_kwargs: Any) -> Any:
        """Run one turn in the background and return a :class:`~crewgraph.flow.conversational.
        streaming.TurnStream`: iterate it for the turn's events (methods, messages, LLM chunks),
        then read ``.result``."""
        self._require_conversational("stream_turn")
        from crewgraph.flow.conversational.streaming import TurnStream

        return TurnStream(self, lambda: self.handle_turn(message, session_id=session_id, intents=intents,
                                                         intent_llm=intent_llm, **kickoff_kwargs))

    def chat(
        self,
        *,
        session_id: str | None = None,
        prompt: str = "\nYou: ",
        assistant_prefix: str = "\nAssistant: ",
        exit_commands: Sequence[str] = ("exit", "quit"),
        input_fn: Callable[[str], str] = input,
        output_fn: Callable[[str], None] = print,
        skip_empty: bool = True,
        defer_trace_finalization: bool = True,
        **handle_turn_kwargs: Any,
    ) -> None:
        """A terminal chat: read a line, run a turn, print the reply; stops on an exit command,
        end of input or Ctrl-C."""
        self._require_conversational("chat")
        leave = {c.lower() for c in exit_commands}
        sid = session_id
        try:
            while True:
                try:
                    line = input_fn(prompt).strip()
                except (EOFError, KeyboardInterrupt):
                    output_fn("")
                    break
                if line.lower() in leave:
                    break
                if skip_empty and not line:
                    continue
                result = self.handle_turn(line, session_id=sid, **handle_turn_kwargs)
                sid = sid or str(self.state.id)
                output_fn(f"{assistant_prefix}{self._stringify_result(result)}")
        finally:
            self.finalize_session_traces()

    def finalize_session_traces(self, *, discard: bool = False) -> None:
        """Close the session's traces. crewgraph traces each turn as its own run (spans end with
        the run), so there is nothing left open to close; kept so CrewAI code runs unchanged."""

    def conversation_start(self) -> str | None:
        """The current user message (an overridable hook, called before routing)."""
        return getattr(self.state, "current_user_message", None)

    # ------------------------------------------------------------------ messages
    @property
    def conversation_messages(self) -> list[dict[str, Any]]:
        """The history as LLM chat messages."""
        from crewgraph.flow.conversational.types import message_to_llm_dict

        state = self._state
        messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
        if isinstance(messages, list):
            return [message_to_llm_dict(m) for m in messages]
        return [message_to_llm_dict(m) for m in self.__dict__.get("_conversation_messages", [])]

    def append_message(self, role: Literal["user", "assistant", "system", "tool"], content: str, **extra: Any) -> None:
        """Append a message to ``state.messages`` (or the flow's own buffer when the state has none)."""
        from crewgraph.flow.conversational.types import ConversationMessage

        message: dict[str, Any] = {"role": role, "content": content}
        message.update({k: v for k, v in extra.items() if k in ("tool_call_id", "name", "tool_calls", "files")})
        state = self._state
        messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
        if isinstance(messages, list):
            annotation = type(state).model_fields.get("messages") if isinstance(state, BaseModel) else None
            if annotation is not None and "ConversationMessage" in str(annotation.annotation):
                messages.append(ConversationMessage(**message))
            else:
                messages.append(message)
        else:
            self.__dict__.setdefault("_conversation_messages", []).append(message)
        if role == "assistant":
            self.__dict__["_reply_appended"] = True

    def append_assistant_message(self, content: str, *, metadata: dict[str, Any] | None = None) -> None:
        """Append the user-visible assistant reply of this turn."""
        from crewgraph.flow.conversational.types import ConversationMessage

        self.__dict__["_reply_appended"] = True
        self.state.messages.append(ConversationMessage(role="assistant", content=content, metadata=metadata or {}))
        self._emit_conversation("ConversationMessageAddedEvent", role="assistant", content=content,
                                message_index=len(self.state.messages) - 1)

    def append_agent_result(self, agent_name: str, result: Any, *, visibility: Literal["private", "public"] = "private",
                            metadata: dict[str, Any] | None = None) -> None:
        """Record an agent's result in ``state.events``/``agent_threads``; a public one (or one of
        ``visible_agent_outputs``) is also the assistant's reply."""
        from crewgraph.flow.conversational.types import AgentMessage, ConversationEvent

        content = self._stringify_result(result)
        config = self._conversation_config
        visible = getattr(config, "visible_agent_outputs", None)
        if visibility != "public" and (visible == "all" or (visible is not None and agent_name in visible)):
            visibility = "public"
        self.state.events.append(ConversationEvent(type="agent_result", agent_name=agent_name, visibility=visibility,
                                                   payload={"content": content, **(metadata or {})}))
        self.state.agent_threads.setdefault(agent_name, []).append(AgentMessage(content=content, metadata=metadata or {}))
        self.__dict__.setdefault("_turn_recorded", []).append(result)
        if visibility == "public":
            self.append_assistant_message(content)

    def receive_user_message(self, text: str, *, outcomes: Sequence[str] | None = None, llm: Any = None) -> str:
        """Append the user's message (and set current/last user message); with ``outcomes`` and
        ``llm`` classify it and return the intent, else return the text."""
        from crewgraph.flow.conversational.types import ConversationMessage

        state = self._state
        if type(self).conversational and hasattr(state, "current_user_message"):
            state.messages.append(ConversationMessage(role="user", content=text))
            state.current_user_message = text
            self._emit_conversation("ConversationMessageAddedEvent", role="user", content=text,
                                    message_index=len(state.messages) - 1)
        else:
            self.append_message("user", text)
        _set(state, "last_user_message", text)
        if outcomes and llm is not None:
            intent = self.classify_intent(text, outcomes, llm=llm, context=self.conversation_messages)
            _set(state, "last_intent", intent)
            self.__dict__["_turn_intent"] = intent
            return intent
        return text

    def classify_intent(self, text: str, outcomes: Sequence[str], *, llm: Any,
                        context: Sequence[Mapping[str, Any]] | None = None) -> str:
        """The one of ``outcomes`` that ``text`` expresses, as ``llm`` judges it (an exact match
        needs no call)."""
        from crewgraph.flow._feedback_llm import classify

        feedback = text
        if context:
            history = "\n".join(f"{m.get('role', 'user')}: {m.get('content', '')}" for m in context)
            feedback = f"{history}\n\nLatest user message: {text}"
            for outcome in outcomes:
                if text.strip().lower() == outcome.lower():
                    return outcome
        return classify(feedback, tuple(outcomes), self._coerce_llm(llm), None, "classify_intent")

    # ------------------------------------------------------------------ routing
    @property
    def _conversation_config(self) -> Any:
        return type(self).conversational_config

    def _apply_pending_turn(self) -> None:
        pending = self.__dict__.get("_pending_turn")
        if not pending:
            return
        message, intents, intent_llm = pending
        text = message if isinstance(message, str) else str(message.get("content", "")) if isinstance(message, dict) else str(message)
        if not text.strip():
            return
        config = self._conversation_config
        outcomes = intents if intents is not None else getattr(config, "default_intents", None)
        llm = intent_llm if intent_llm is not None else getattr(config, "intent_llm", None)
        if outcomes:
            if llm is None:
                raise ValueError("intent_llm is required when intents are provided")
            self.receive_user_message(text, outcomes=outcomes, llm=llm)
        else:
            self.receive_user_message(text)
        self.conversation_start()

    def build_router_context(self) -> dict[str, Any]:
        """What the router sees for this turn."""
        state = self.state
        return {
            "system_prompt": self._system_prompt(),
            "current_user_message": getattr(state, "current_user_message", None),
            "message_history": self.conversation_messages,
            "events": [e.model_dump() for e in getattr(state, "events", [])],
            "last_intent": getattr(state, "last_intent", None),
        }

    def build_agent_context(self, agent_name: str) -> list[dict[str, Any]]:
        """The history plus ``agent_name``'s own thread, as chat messages."""
        messages = list(self.conversation_messages)
        for msg in getattr(self.state, "agent_threads", {}).get(agent_name, []):
            messages.append({"role": msg.role, "content": self._stringify_result(msg.content)})
        return messages

    def route_turn(self, context: dict[str, Any]) -> str | None:
        """The route of this turn by the router LLM (None: no decision, fall back). Without a
        ``RouterConfig`` the router runs only when the flow has routes of its own."""
        from crewgraph.flow.conversational.routing import route_with_config, routes_of
        from crewgraph.flow.conversational.types import RouterConfig

        config = self._conversation_config
        if config is None:
            return None
        router = getattr(config, "router", None)
        if router is None:
            if getattr(config, "default_intents", None) or not (routes_of(self, None) - set(self.builtin_routes)):
                return None
            router = RouterConfig()
        return route_with_config(self, router, context)

    def can_answer_from_history(self, context: dict[str, Any]) -> bool:
        """Whether the ``answer_from_history_llm`` judges the history enough to answer."""
        config = self._conversation_config
        llm = getattr(config, "answer_from_history_llm", None)
        if llm is None or len(self.conversation_messages) < 2:
            return False
        from crewgraph.flow._feedback_llm import classify

        history = "\n".join(f"{m.get('role')}: {m.get('content')}" for m in self.conversation_messages)
        feedback = (f"{self._history_prompt()}\n\nCurrent user message: {context.get('current_user_message')}"
                    f"\n\nMessage history:\n{history}")
        return classify(feedback, ("answer_from_history", "route_to_flow"), self._coerce_llm(llm), None,
                        "can_answer_from_history") == "answer_from_history"

    # ------------------------------------------------------------------ helpers
    def _system_prompt(self) -> str | None:
        from crewgraph.flow.conversational.graph import DEFAULT_SYSTEM_PROMPT

        config = self._conversation_config
        prompt = getattr(config, "system_prompt", None)
        return DEFAULT_SYSTEM_PROMPT if prompt is None else (prompt or None)

    def _history_prompt(self) -> str:
        return getattr(self._conversation_config, "answer_from_history_prompt", None) or _HISTORY_PROMPT

    def _conversation_llm(self) -> Any:
        config = self._conversation_config
        if config is None:
            return None
        router = getattr(config, "router", None)
        return (getattr(config, "llm", None) or getattr(config, "answer_from_history_llm", None)
                or (router.llm if router else None) or getattr(config, "intent_llm", None))

    def _is_public_result(self, result: Any) -> bool:
        if any(result is done for done in self.__dict__.get("_turn_recorded", [])):
            return False
        text = result if isinstance(result, str) else getattr(result, "raw", None)
        if not isinstance(text, str):
            return False
        internal = set(self.builtin_routes) | set(self.internal_routes) | {"conversation", "route_to_flow"}
        return text not in internal and text != getattr(self.state, "last_intent", None)

    @staticmethod
    def _stringify_result(result: Any) -> str:
        if hasattr(result, "raw"):
            return str(result.raw)
        if isinstance(result, BaseModel):
            return result.model_dump_json()
        return str(result)

    @staticmethod
    def _coerce_llm(llm: Any) -> Any:
        if callable(getattr(llm, "call", None)):
            return llm
        if isinstance(llm, str):
            from crewgraph.llm import LLM

            return LLM(model=llm)
        if isinstance(llm, Mapping) and "model" in llm:
            from crewgraph.llm import LLM

            return LLM(**dict(llm))
        raise ValueError(f"invalid llm {llm!r}: expected a model name, a mapping with 'model', or an LLM")


def _set(state: Any, name: str, value: Any) -> None:
    if isinstance(state, dict):
        state[name] = value
    elif hasattr(state, name):
        setattr(state, name, value)


