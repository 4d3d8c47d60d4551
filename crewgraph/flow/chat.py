"""CrewAI's ``crewai.flow.chat``: a transport-neutral chat session over a conversational flow.

``ChatSession(flow, session_id)`` runs one turn per ``handle_turn(text)`` --
``flow.handle_turn(text, session_id=...)``, so each turn is one run of the
executed graph and a persisted flow continues the session in any process --
and returns a :class:`TurnResult` (output, intent, the history). With
``on_event=`` every turn is also told as :class:`ChatMessage`\\s, CrewAI's
versioned wire format for chat UIs (WebSocket, SSE, webhooks): ``turn_started``,
``assistant_delta`` (the chunks of models streaming in the turn),
``tool_started``/``tool_finished``, ``assistant_done``, ``turn_finished`` and
``error``, numbered by ``seq``. ``iter_turn_stream(text)`` runs a streaming
turn and yields those messages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import uuid4

from pydantic import BaseModel, Field

__all__ = [
    "ChatMessage",
    "ChatMessageType",
    "ChatSession",
    "ConversationEventBridge",
    "TurnResult",
    "stamp_conversation_fingerprint",
]

ChatMessageType = Literal[
    "user_message", "assistant_delta", "assistant_done", "turn_started", "turn_finished", "error",
    "tool_started", "tool_finished",
]


class ChatMessage(BaseModel):
    """One message of CrewAI's chat wire format (version ``"1"``)."""

    version: str = "1"
    type: ChatMessageType
    session_id: str
    payload: dict[str, Any] = Field(default_factory=dict)
    seq: int | None = None


@dataclass
class TurnResult:
    """What one turn gave: its output, the intent it was routed by, the history after it."""

    session_id: str
    output: Any
    intent: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    streaming: Any = None
    """The turn's :class:`~crewgraph.flow.conversational.streaming.TurnStream` when it streamed."""


class _Sequence:
    """One session's ``seq`` numbers, shared by the session and its bridge (thread-safe)."""

    def __init__(self) -> None:
        self._value = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            self._value += 1
            return self._value


class ChatSession:
    """One chat session (the state id ``session_id``) of a conversational flow."""

    def __init__(
        self,
        flow: Any,
        session_id: str | None = None,
        *,
        intents: Sequence[str] | None = None,
        intent_llm: Any = None,
        on_event: Callable[[ChatMessage], None] | None = None,
    ) -> None:
        flow._require_conversational("ChatSession")
        self._flow = flow
        self._session_id = session_id or str(uuid4())
        self._intents = list(intents) if intents else None
        self._intent_llm = intent_llm
        self._on_event = on_event
        self._seq = _Sequence()
        self._bridge: ConversationEventBridge | None = None
        if on_event is not None:
            self._bridge = ConversationEventBridge(self._session_id, self._send, flow=flow)
            self._bridge.register()

    @property
    def session_id(self) -> str:
        return self._session_id

    def handle_turn(self, user_message: str, *, stream: bool | None = None) -> TurnResult:
        """Run one turn for ``user_message``; ``stream=True`` runs it as ``stream_turn``
        (its model chunks reach ``on_event`` as ``assistant_delta`` while it runs)."""
        self._emit("turn_started", {"user_message": user_message})
        streaming = None
        try:
            kwargs = {"session_id": self._session_id, "intents": self._intents, "intent_llm": self._intent_llm}
            if stream:
                streaming = self._flow.stream_turn(user_message, **kwargs)
                for _ in streaming:
                    pass  # the bridge forwards the chunks
                output = streaming.result
            else:
                output = self._flow.handle_turn(user_message, **kwargs)
        except Exception as exc:
            self._emit("error", {"message": str(exc)})
            raise
        state = self._flow.state
        intent = state.get("last_intent") if isinstance(state, dict) else getattr(state, "last_intent", None)
        messages = list(self._flow.conversation_messages)
        self._emit("assistant_done", {"output": output, "intent": intent})
        self._emit("turn_finished", {"output": output})
        return TurnResult(session_id=self._session_id, output=output, intent=intent, messages=messages,
                          streaming=streaming)

    def iter_turn_stream(self, user_message: str) -> Iterator[ChatMessage]:
        """Run a streaming turn and yield its :class:`ChatMessage`\\s."""
        collected: list[ChatMessage] = []
        prior, self._on_event = self._on_event, collected.append
        own_bridge = self._bridge is None
        if own_bridge:
            self._bridge = ConversationEventBridge(self._session_id, self._send, flow=self._flow)
            self._bridge.register()
        try:
            self.handle_turn(user_message, stream=True)
        finally:
            self._on_event = prior
            if own_bridge and self._bridge is not None:
                self._bridge.unregister()
                self._bridge = None
        yield from collected

    def close(self) -> None:
        """Stop telling ``on_event`` (crewgraph keeps no session traces open to finalize)."""
        if self._bridge is not None:
            self._bridge.unregister()
            self._bridge = None

    def _send(self, message: ChatMessage) -> None:
        if self._on_event is not None:
            self._on_event(message)

    def _emit(self, kind: ChatMessageType, payload: dict[str, Any]) -> None:
        if self._on_event is not None:
            self._on_event(ChatMessage(type=kind, session_id=self._session_id, payload=payload,
                                       seq=self._seq.next()))


class ConversationEventBridge:
    """Turns the bus events of a session's turns (model chunks, tool calls) into :class:`ChatMessage`\\s.

    An event belongs to the session when it carries its ``conversation_id`` (see
    :func:`stamp_conversation_fingerprint`) or, with ``flow=``, the run id of that flow's
    current turn."""

    def __init__(self, session_id: str, handler: Callable[[ChatMessage], None], *, flow: Any = None) -> None:
        self._session_id = session_id
        self._handler = handler
        self._flow = flow
        self._seq = _Sequence()
        self._registered: list[tuple[type, Any]] = []

    def register(self) -> None:
        from crewgraph.events.bus import crewgraph_event_bus
        from crewgraph.events.llm_events import LLMStreamChunkEvent
        from crewgraph.events.tool_events import ToolUsageFinishedEvent, ToolUsageStartedEvent

        def on_chunk(source: Any, event: Any) -> None:
            if self._matches(event) and getattr(event, "chunk", None):
                self._dispatch("assistant_delta", {"chunk": event.chunk, "agent_role": event.agent_role or ""})

        def on_tool(kind: ChatMessageType) -> Any:
            def handler(source: Any, event: Any) -> None:
                if self._matches(event):
                    self._dispatch(kind, {"tool_name": getattr(event, "tool_name", "")})
            return handler

        for event_type, handler in ((LLMStreamChunkEvent, on_chunk),
                                    (ToolUsageStartedEvent, on_tool("tool_started")),
                                    (ToolUsageFinishedEvent, on_tool("tool_finished"))):
            crewgraph_event_bus.register_handler(event_type, handler, inline=True)
            self._registered.append((event_type, handler))

    def unregister(self) -> None:
        from crewgraph.events.bus import crewgraph_event_bus

        for event_type, handler in self._registered:
            crewgraph_event_bus.off(event_type, handler)
        self._registered.clear()

    def _matches(self, event: Any) -> bool:
        meta = getattr(event, "fingerprint_metadata", None) or {}
        if isinstance(meta, dict) and meta.get("conversation_id") == self._session_id:
            return True
        if getattr(event, "source_fingerprint", None) == self._session_id:
            return True
        run_id = getattr(self._flow, "run_id", None) if self._flow is not None else None
        return run_id is not None and getattr(event, "run_id", None) == run_id

    def _dispatch(self, kind: ChatMessageType, payload: dict[str, Any]) -> None:
        self._handler(ChatMessage(type=kind, session_id=self._session_id, payload=payload, seq=self._seq.next()))


def stamp_conversation_fingerprint(event: Any, session_id: str) -> None:
    """Mark ``event`` as the session's (``fingerprint_metadata["conversation_id"]``) before it is
    dispatched, so a bridge or an outside system can attribute it."""
    if not getattr(event, "source_fingerprint", None):
        try:
            event.source_fingerprint = session_id
        except (AttributeError, ValueError):
            pass
    meta = getattr(event, "fingerprint_metadata", None)
    if meta is None:
        try:
            event.fingerprint_metadata = {"conversation_id": session_id}
        except (AttributeError, ValueError):
            pass
    elif isinstance(meta, dict):
        meta.setdefault("conversation_id", session_id)
