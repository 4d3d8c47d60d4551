"""Keeping an agent's conversation inside its model's context window (``respect_context_window``).

A long tool loop (big search results, file reads) grows the conversation
until the model refuses it; CrewAI users meet this often. Before each turn
the step estimates the conversation's size against the model's window (when
the model reports one: ``get_context_window_size()``) and, when a server
answers "context length exceeded" anyway, does the same once more with a
tighter budget. Making room keeps what the model needs most: the system
prompt, the task prompt and the latest turns. The older turns in between are
summarised in one model call (in chunks if they are large); if that call
fails, or the result still does not fit, they are dropped with a note saying
so, and finally any single message still too long is cut in its middle.
A tool call and its results are kept or removed together, since servers
reject a tool result whose call is missing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = [
    "USABLE_FRACTION",
    "context_window_of",
    "estimate_tokens",
    "fit_messages",
    "is_context_overflow",
]

_log = logging.getLogger("crewgraph.agent")

USABLE_FRACTION = 0.85
"""Share of the window the conversation may fill (CrewAI's ratio); the rest is for the reply."""

_CHARS_PER_TOKEN = 4
_IMAGE_TOKENS = 1000
"""What an attached image/file part is counted as (a rough figure: parts are never cut)."""

_OVERFLOW_MARKERS = (
    "context_length_exceeded", "context length", "context window", "maximum context", "too many tokens",
    "prompt is too long", "input is too long", "reduce the length", "exceeds the model",
    # llama.cpp: "request (12016 tokens) exceeds the available context size (8192 tokens)"
    "exceed_context_size", "exceeds the available context", "context size",
    # Ollama: "the input length exceeds the context length"
    "input length exceeds",
)

SUMMARY_PROMPT = (
    "Summarise the conversation below: the work an AI agent has done so far on its task. Keep every "
    "fact, number, name, tool result and decision the agent still needs; drop repetition. Reply with "
    "the summary only."
)

Summarize = Callable[[str], Awaitable[str]]
"""Given the text of older turns, returns their summary (a model call)."""


def context_window_of(llm: Any) -> int | None:
    """The model's context window in tokens, when the client knows it."""
    size = getattr(llm, "get_context_window_size", None)
    if not callable(size):
        return None
    from crewgraph.llm.base import BaseLLM

    if getattr(type(llm), "get_context_window_size", None) is BaseLLM.get_context_window_size:
        return None  # the base class's placeholder (CrewAI's 4096) is a guess, not knowledge
    try:
        value = size()
    except Exception:  # a custom client's method failing must not fail the step
        return None
    return int(value) if isinstance(value, int | float) and value > 0 else None


def is_context_overflow(exc: BaseException) -> bool:
    """True for a server's refusal because the conversation is longer than the model's window."""
    text = f"{getattr(exc, 'code', '') or ''} {exc}".lower()
    return any(marker in text for marker in _OVERFLOW_MARKERS)


def _content_tokens(content: Any) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return len(content) // _CHARS_PER_TOKEN
    if isinstance(content, list):
        total = 0
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                total += len(str(part.get("text") or "")) // _CHARS_PER_TOKEN
            else:
                total += _IMAGE_TOKENS
        return total
    return len(str(content)) // _CHARS_PER_TOKEN


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """A rough size of ``messages`` (~4 characters a token, plus a little per message)."""
    total = 0
    for msg in messages:
        total += 4 + _content_tokens(msg.get("content"))
        if msg.get("tool_calls"):
            total += len(json.dumps(msg["tool_calls"], default=str)) // _CHARS_PER_TOKEN
    return total


def _head_size(messages: list[dict[str, Any]]) -> int:
    """The leading messages that define the work: system prompt(s) and the first user message."""
    for i, msg in enumerate(messages):
        if msg.get("role") == "user":
            return i + 1
    return min(len(messages), 1)


def _tail_start(messages: list[dict[str, Any]], head: int, budget: int) -> int:
    """Where the kept latest turns begin: as many as fit ``budget`` (at least the last message),
    moved back so a tool result is never kept without the call that asked for it."""
    start = len(messages) - 1
    used = estimate_tokens(messages[start:])
    while start - 1 >= head and used + estimate_tokens([messages[start - 1]]) <= budget:
        start -= 1
        used += estimate_tokens([messages[start]])
    while start > head and messages[start].get("role") == "tool":
        start -= 1
    return start


def _as_text(messages: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for msg in messages:
        role = msg.get("role", "?")
        content = msg.get("content")
        if isinstance(content, list):
            content = " ".join(str(p.get("text", "[attachment]")) for p in content if isinstance(p, dict))
        if msg.get("tool_calls"):
            calls = ", ".join(
                f"{(c.get('function') or {}).get('name', '?')}({(c.get('function') or {}).get('arguments', '')})"
                for c in msg["tool_calls"]
            )
            content = f"{content or ''} [called tools: {calls}]".strip()
        name = f" {msg['name']}" if msg.get("name") else ""
        lines.append(f"[{role}{name}] {content or ''}")
    return "\n".join(lines)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


async def _summarise(middle: list[dict[str, Any]], summarize: Summarize, budget: int) -> str:
    """The older turns as one summary; text larger than half the budget is summarised in chunks."""
    text = _as_text(middle)
    pieces = [await summarize(chunk) for chunk in _chunks(text, max(budget // 2, 256) * _CHARS_PER_TOKEN)]
    return "\n\n".join(p.strip() for p in pieces if p and p.strip())


def _cut_longest(messages: list[dict[str, Any]], budget: int) -> bool:
    """Cut the middle out of the longest text message; False when nothing is left to cut."""
    best, best_len = -1, 0
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if isinstance(content, str) and len(content) > best_len:
            best, best_len = i, len(content)
    if best < 0 or best_len < 200:
        return False
    excess = (estimate_tokens(messages) - budget) * _CHARS_PER_TOKEN
    keep = max(best_len - max(excess, best_len // 4) - 100, 100)
    content = messages[best]["content"]
    note = f"\n[... {best_len - keep} characters cut to fit the model's context window ...]\n"
    messages[best] = {**messages[best], "content": content[: keep // 2] + note + content[-(keep - keep // 2):]}
    return True


async def fit_messages(
    messages: list[dict[str, Any]], budget: int, summarize: Summarize | None
) -> list[dict[str, Any]] | None:
    """``messages`` made to fit ``budget`` tokens, or None when they already fit.

    Older turns are summarised (``summarize``), else dropped with a note; then the longest
    messages are cut. The result keeps the head (system + task prompt) and the latest turns.
    """
    if estimate_tokens(messages) <= budget:
        return None
    head_n = _head_size(messages)
    head = [dict(m) for m in messages[:head_n]]
    start = _tail_start(messages, head_n, max(budget - estimate_tokens(head), 0) // 2)
    middle, tail = messages[head_n:start], [dict(m) for m in messages[start:]]
    out = head + tail
    if middle:
        note = None
        if summarize is not None:
            try:
                summary = await _summarise(middle, summarize, budget)
            except Exception as exc:  # the summary is a courtesy: trimming still makes room
                _log.warning("summarising %d older messages failed (%s); dropping them instead", len(middle), exc)
                summary = ""
            if summary:
                note = (
                    f"Summary of the earlier work on this task ({len(middle)} older messages were "
                    f"summarised to fit the model's context window):\n{summary}"
                )
        if note is None:
            note = f"[{len(middle)} older messages were removed to fit the model's context window]"
        out = [*head, {"role": "user", "content": note}, *tail]
        if estimate_tokens(out) > budget and summarize is not None and note.startswith("Summary"):
            out = [*head, {"role": "user", "content": f"[{len(middle)} older messages were removed to fit "
                                                      "the model's context window]"}, *tail]
    while estimate_tokens(out) > budget and _cut_longest(out, budget):
        pass
    return out
