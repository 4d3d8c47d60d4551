"""Reply shapes of real local servers, for :class:`~crewgraph.testing.OpenAICompatServer`.

Real OpenAI-compatible servers (llama.cpp, llama-cpp-python, Ollama, vLLM, LM
Studio) with small open models behave in ways a hosted API does not. These
shapes reproduce them offline, so the code paths that handle them run in
every test run:

- :func:`written_tool_calls`: a tool call *written into the content* in one of
  the formats open models use (``TEXT_TOOL_FORMATS``). With
  ``OpenAICompatServer(tool_calls_as_text=FORMAT)`` every tool call the script
  makes, and every forced structured-output call (``tool_choice`` naming a
  function), comes back that way: the server accepted ``tools`` but its model
  answered in text. ``"prose"`` answers a forced call with its arguments as
  JSON inside a sentence (a model that ignores the forced tool altogether).
- :class:`SlowModel`: a slow model on a server with few generation slots
  (llama.cpp ``-np 1`` on a laptop CPU). Requests queue for a slot; a
  non-streamed generation runs to its end even when the client has hung up
  (the slot stays busy, as llama.cpp's does); a streamed one stops at the
  next token after the client closes the stream. Every generation is logged.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["TEXT_TOOL_FORMATS", "Generation", "SlowModel", "client_gone", "written_tool_calls"]

TEXT_TOOL_FORMATS = ("json", "fenced_json", "hermes", "mistral", "llama", "pythonic", "functions")
"""Formats :func:`written_tool_calls` writes (the ones ``crewgraph.nodes._content_calls`` reads)."""


def written_tool_calls(fmt: str, calls: Sequence[tuple[str, str]], prose: str = "") -> str:
    """The content a model writes for ``calls`` (``(name, arguments JSON)`` pairs) in format ``fmt``.

    ``fmt`` is one of :data:`TEXT_TOOL_FORMATS`, or ``"prose"`` (the first call's arguments as
    JSON inside a sentence, no call at all). ``prose`` is text the model writes before the call.
    """
    objects = [{"name": name, "arguments": json.loads(args or "{}")} for name, args in calls]
    lead = f"{prose}\n" if prose else ""
    if fmt == "json":
        body = json.dumps(objects[0] if len(objects) == 1 else objects)
    elif fmt == "fenced_json":
        body = "\n".join(f"```json\n{json.dumps(o, indent=2)}\n```" for o in objects)
    elif fmt == "hermes":
        body = "\n".join(f"<tool_call>\n{json.dumps(o)}\n</tool_call>" for o in objects)
    elif fmt == "mistral":
        body = "[TOOL_CALLS] " + json.dumps(objects)
    elif fmt == "llama":
        body = "<|python_tag|>" + "; ".join(
            json.dumps({"name": o["name"], "parameters": o["arguments"]}) for o in objects
        )
    elif fmt == "pythonic":
        body = "[" + ", ".join(
            f"{o['name']}(" + ", ".join(f"{k}={v!r}" for k, v in o["arguments"].items()) + ")" for o in objects
        ) + "]"
    elif fmt == "functions":
        body = "\n".join(f"functions.{o['name']}:{json.dumps(o['arguments'])}" for o in objects)
    elif fmt == "prose":
        shown = json.dumps(objects[0]['arguments']) if objects else '{}'
        body = f"Sure! Here it is: {shown} Let me know if you need more."
    else:
        raise ValueError(f"unknown text tool-call format {fmt!r}; use one of {TEXT_TOOL_FORMATS} or 'prose'")
    return lead + body


@dataclass
class Generation:
    """One generation on a :class:`SlowModel`: when it waited, started and ended (monotonic
    seconds), its tokens, and whether the client was gone when it ended (``abandoned``) or
    closed the stream so the generation stopped early (``stopped_early``)."""

    request: int
    queued: float
    started: float = 0.0
    ended: float = 0.0
    tokens: int = 0
    stream: bool = False
    abandoned: bool = False
    stopped_early: bool = False

    @property
    def busy_seconds(self) -> float:
        return self.ended - self.started


@dataclass
class SlowModel:
    """Timing of a slow local model: ``prompt_seconds`` of prefill per request, then
    ``seconds_per_token`` per generated token, on ``slots`` generation slots.

    The server computes a reply's token count from its text (about 4 characters per token,
    at least 1). Give it to ``OpenAICompatServer(slow_model=...)``.
    """

    seconds_per_token: float = 0.02
    prompt_seconds: float = 0.0
    slots: int = 1
    generations: list[Generation] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._slots = threading.BoundedSemaphore(self.slots)
        self._lock = threading.Lock()

    def start(self, request: int, tokens: int, *, stream: bool) -> Generation:
        """Queue for a slot (blocking), then run the prefill; the caller generates and calls
        :meth:`finish`."""
        gen = Generation(request=request, queued=time.monotonic(), tokens=max(1, tokens), stream=stream)
        with self._lock:
            self.generations.append(gen)
        self._slots.acquire()
        gen.started = time.monotonic()
        if self.prompt_seconds > 0:
            time.sleep(self.prompt_seconds)
        return gen

    def generate(self, gen: Generation, tokens: int) -> None:
        """Spend the time of ``tokens`` generated tokens (the slot stays busy)."""
        if tokens > 0 and self.seconds_per_token > 0:
            time.sleep(tokens * self.seconds_per_token)

    def finish(self, gen: Generation, *, abandoned: bool = False, stopped_early: bool = False) -> None:
        gen.ended = time.monotonic()
        gen.abandoned = gen.abandoned or abandoned
        gen.stopped_early = gen.stopped_early or stopped_early
        self._slots.release()

    @property
    def busy_seconds(self) -> float:
        """Total slot time spent generating, including for clients that had gone."""
        with self._lock:
            return sum(g.busy_seconds for g in self.generations if g.ended)

    @property
    def wasted_seconds(self) -> float:
        """Slot time spent on generations nobody read (abandoned non-streamed requests)."""
        with self._lock:
            return sum(g.busy_seconds for g in self.generations if g.ended and g.abandoned)


def client_gone(sock: Any) -> bool:
    """True when the peer of ``sock`` has closed its side (readable, and a peek reads EOF)."""
    import select
    import socket

    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (OSError, ValueError):
        return True
