"""The text (ReAct-style) tool protocol, for models and servers without native tool calling.

Many local models (llama.cpp without ``--jinja``, Ollama models without a tool
template, older vLLM) cannot take the ``tools`` parameter. CrewAI serves them
by describing the tools in the prompt and reading the model's reply as text::

    Thought: I need the population first
    Action: search
    Action Input: {"query": "population of Oslo"}

or, to finish::

    Thought: I now know the final answer
    Final Answer: about 700,000

This module holds that protocol as pure functions (prompt rendering, reply
parsing, rewriting a native-tool conversation into text) so the agent step
only decides *when* to use it. The tool calls it finds still run as ordinary
``ToolCallNode``s; their results go back as ``Observation: ...`` user messages.

Parsing rules (documented in ``docs/llm.md``):

- Labels (``Thought:``, ``Action:``, ``Action Input:``, ``Observation:``,
  ``Final Answer:``) are matched case-insensitively, with extra spaces,
  ``Action_Input``/``FinalAnswer`` spellings and markdown decoration
  (``**Action:**``, ``> ``, ``- ``) allowed. ``Action:`` must start a line;
  ``Final Answer:`` is also found in the middle of a line.
- **One action per reply.** Whichever comes first wins: an ``Action:``
  before any ``Final Answer:`` is a tool call, and everything after its
  ``Action Input`` (a second action, an ``Observation`` or ``Final Answer``
  the model made up) is dropped, because the model has to see the real
  observation first.
- ``Action Input`` is read up to the next label: a JSON object, bare or in a
  fenced code block (a Python dict literal such as ``{'a': 1}`` is accepted
  too), with any trailing text ignored. A missing or empty
  input (or ``None``) means ``{}``. An input that is not a JSON object is
  passed on verbatim, so the tool node answers with its usual "invalid
  arguments" message and the tool's schema, as it does for native calls.
- An unknown tool name is passed on too: the tool node answers with the usual
  "tool does not exist, available tools are ..." message.
- A reply with neither a (non-empty) ``Action`` nor a ``Final Answer`` is
  :class:`TextInvalid`; the step sends :func:`corrective_message` once.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crewgraph._internal.shared_prompt import PromptMessage
from crewgraph.llm.types import ToolSpec

__all__ = [
    "FORMAT_MARKER",
    "TextAction",
    "TextFinal",
    "TextInvalid",
    "TextReply",
    "corrective_message",
    "final_answer_text",
    "forced_final_message",
    "is_tools_unsupported",
    "known_text_only",
    "observation_message",
    "parse_reply",
    "remember_text_only",
    "text_history",
    "tools_prompt",
    "with_tools_prompt",
]

FORMAT_MARKER = "You ONLY have access to the following tools"
"""Opening of :func:`tools_prompt`; its presence means the system prompt already has the protocol
(a guardrail redo reuses the first messages of the original conversation)."""

_DECOR = r"[ \t>*_#`-]*"
_ACTION = re.compile(rf"(?im)^{_DECOR}action{_DECOR}:")
_ACTION_INPUT = re.compile(r"(?i)action[ \t_-]*input[ \t*_`]*:[*_]*")
_FINAL = re.compile(r"(?i)final[ \t_-]*answer[ \t*_`]*:[*_]*")
_ANY_LABEL = re.compile(
    rf"(?im)^{_DECOR}(?:thought|action[ \t_-]*input|action|observation|final[ \t_-]*answer)[ \t*_`]*:"
)
_FENCE = re.compile(r"```[ \t]*[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)
_UNSUPPORTED = re.compile(
    r"(?i)(?:not|n't|no)\s+support\w*\s+(?:for\s+)?(?:tools?\b|tool[ _-]?call|function[ _-]?call)"
    r"|tools?\s+param\w*\s+requires|enable-auto-tool-choice"
)
_NO_INPUT = frozenset({"", "none", "null", "n/a", "{}", "no input", "nothing"})


@dataclass(frozen=True)
class TextAction:
    """A tool call read from text. ``arguments`` is JSON text (as in a native ``ToolCall``),
    or the model's input verbatim when it was not a JSON object; ``text`` is the reply up to
    the end of the action, which is what the conversation keeps."""

    tool: str
    arguments: str
    text: str
    thought: str = ""


@dataclass(frozen=True)
class TextFinal:
    """The model's final answer (the text after ``Final Answer:``)."""

    answer: str


@dataclass(frozen=True)
class TextInvalid:
    """Neither a usable action nor a final answer; ``problem`` says what was wrong, for the model."""

    problem: str


TextReply = TextAction | TextFinal | TextInvalid


# ------------------------------------------------------------------ prompts
def tools_prompt(specs: Sequence[ToolSpec]) -> str:
    """The tool list and the exact reply format, appended to the system prompt in text mode."""
    blocks = [
        f"Tool Name: {spec.name}\nTool Description: {spec.description or '(no description)'}\n"
        f"Tool Arguments (JSON schema): {json.dumps(spec.parameters, sort_keys=True)}"
        for spec in specs
    ]
    names = ", ".join(spec.name for spec in specs)
    return (
        f"{FORMAT_MARKER}, and should NEVER make up tools that are not listed here:\n\n"
        + "\n\n".join(blocks)
        + "\n\nIMPORTANT: To use a tool, reply in exactly this format and then STOP:\n\n"
        "Thought: what you should do next and why\n"
        f"Action: the name of the tool, exactly one of [{names}]\n"
        'Action Input: the arguments as one JSON object on one line, e.g. {"key": "value"}\n\n'
        "Call one tool per reply. The result comes back to you as a message starting with "
        '"Observation:"; never write the Observation yourself.\n\n'
        "Once you have all the information you need, reply in this format:\n\n"
        "Thought: I now know the final answer\n"
        "Final Answer: your complete final answer"
    )


def with_tools_prompt(messages: list[dict[str, Any]], specs: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """``messages`` with :func:`tools_prompt` appended to the (first) system message.

    A copy; unchanged when the protocol is already there (a redo reuses the
    original system message). Without a system message one is inserted first.
    """
    out = [dict(m) for m in messages]
    for msg in out:
        if msg.get("role") == "system":
            content = str(msg.get("content") or "")
            if FORMAT_MARKER not in content:
                msg["content"] = f"{content}\n\n{tools_prompt(specs)}" if content else tools_prompt(specs)
            return out
    return [{"role": "system", "content": tools_prompt(specs)}, *out]


def text_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with native tool traffic rewritten as text.

    Used when a step switches protocol mid-conversation (or a model without
    tool calling reads a conversation that has some): an assistant message's
    ``tool_calls`` become ``Action:``/``Action Input:`` lines and ``tool``
    messages become ``Observation:`` user messages, which any chat server
    accepts. Other messages are copied unchanged.
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        calls = msg.get("tool_calls") if msg.get("role") == "assistant" else None
        if calls:
            lines = [str(msg["content"])] if msg.get("content") else []
            for call in calls:
                function = call.get("function") or {}
                lines.append(f"Action: {function.get('name', '')}\nAction Input: {function.get('arguments') or '{}'}")
            out.append({"role": "assistant", "content": "\n".join(lines)})
        elif msg.get("role") == "tool":
            out.append(observation_message(str(msg.get("content") or "")))
        else:
            out.append(msg.copy() if type(msg) is PromptMessage else dict(msg))
    return out


def observation_message(result: str) -> dict[str, Any]:
    """A tool's result as the model reads it in text mode."""
    return {"role": "user", "content": f"Observation: {result}"}


def corrective_message(problem: str, tool_names: Sequence[str]) -> str:
    """What the model reads after a reply that is neither an action nor a final answer."""
    names = ", ".join(tool_names)
    return (
        f"Your reply did not follow the required format: {problem}\n\n"
        "To use a tool, reply with exactly:\n"
        "Thought: what you should do next\n"
        f"Action: one of [{names}]\n"
        'Action Input: a JSON object, e.g. {"key": "value"}\n\n'
        "If you are done, reply with:\n"
        "Thought: I now know the final answer\n"
        "Final Answer: your complete final answer"
    )


def forced_final_message(base: str) -> str:
    """The max-iterations message, plus the line a text-protocol model needs to answer in format."""
    return f"{base}\nReply with \"Final Answer:\" followed by your complete final answer."


# ------------------------------------------------------------------ parsing
def parse_reply(text: str) -> TextReply:
    """Read one model reply under the text protocol (rules in the module docstring)."""
    action = _ACTION.search(text)
    final = _FINAL.search(text)
    if action is not None and (final is None or action.start() < final.start()):
        return _parse_action(text, action)
    if final is not None:
        answer = text[final.end():].strip()
        if answer:
            return TextFinal(answer=answer)
        return TextInvalid('"Final Answer:" was empty; write your complete answer after it.')
    return TextInvalid('it has neither an "Action:" with an "Action Input:" nor a "Final Answer:".')


def final_answer_text(text: str) -> str:
    """The answer in a reply that must be final: after ``Final Answer:`` if present, else all of it."""
    final = _FINAL.search(text)
    if final is not None and text[final.end():].strip():
        return text[final.end():].strip()
    return text.strip()


def _parse_action(text: str, action: re.Match[str]) -> TextReply:
    rest = text[action.end():]
    line, _, _ = rest.partition("\n")
    same_line_input = _ACTION_INPUT.search(line)
    if same_line_input is not None:
        line = line[: same_line_input.start()]
    name = _clean_name(line)
    if not name:
        return TextInvalid('"Action:" must be followed by the name of a tool.')
    thought = _thought(text[: action.start()])
    found = _ACTION_INPUT.search(rest)
    if found is None:
        # No input given: a tool without arguments; anything after the Action line is dropped.
        end = action.end() + len(rest.partition("\n")[0])
        return TextAction(tool=name, arguments="{}", text=text[:end].rstrip(), thought=thought)
    raw_input = rest[found.end():]
    following = _ANY_LABEL.search(raw_input)
    segment = raw_input[: following.start()] if following is not None else raw_input
    arguments, used = _arguments(segment)
    end = action.end() + found.end() + used
    return TextAction(tool=name, arguments=arguments, text=text[:end].rstrip(), thought=thought)


def _clean_name(line: str) -> str:
    """The tool name from an ``Action:`` line, without decoration (quotes, backticks, brackets,
    markdown, a trailing period or ``()``) that models add around it."""
    name = line.strip().strip("*_`'\"[]<> \t").strip()
    if name.endswith("()"):
        name = name[:-2]
    return name.rstrip(".:,; ").strip("*_`'\"[]<> \t")


def _thought(before: str) -> str:
    match = re.search(r"(?i)thought[ \t*_]*:", before)
    return (before[match.end():] if match is not None else before).strip()


def _arguments(segment: str) -> tuple[str, int]:
    """(JSON text or the raw input, characters of ``segment`` that belong to the action).

    Only a JSON object is canonicalised; anything else is handed on verbatim
    for the tool node to explain.
    """
    fence = _FENCE.search(segment)
    if fence is not None and segment[: fence.start()].strip() == "":
        body, used = fence.group(1).strip(), fence.end()
    else:
        body, used = segment.strip(), len(segment.rstrip())
    if body.strip().strip("\"'").lower() in _NO_INPUT:
        return "{}", used
    start = body.find("{")
    if start != -1 and body[:start].strip() == "":
        value, stop = _decode_object(body, start)
        if isinstance(value, dict):
            if fence is None:
                used = segment.find("{") + stop - start
            return json.dumps(value), used
    return body, used


def _decode_object(body: str, start: int) -> tuple[Any, int]:
    """The value starting at ``body[start]`` and where it ends: JSON first, then a Python dict
    literal (``{'a': 1}``, which small models often write); ``(None, start)`` if neither."""
    try:
        return json.JSONDecoder().raw_decode(body, start)
    except json.JSONDecodeError:
        pass
    depth = 0
    for index in range(start, len(body)):
        depth += {"{": 1, "}": -1}.get(body[index], 0)
        if depth == 0:
            try:
                return ast.literal_eval(body[start : index + 1]), index + 1
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return None, start
    return None, start


# ------------------------------------------------------------------ fallback
def is_tools_unsupported(exc: BaseException, llm: Any) -> bool:
    """True when a failed call with tools means "this model/server cannot do tool calling".

    The real client remembers such a rejection (``supports_function_calling()``
    turns False); other clients are judged by the ``LLMError``'s message, in
    the words servers use: Ollama "does not support tools", llama.cpp "tools
    param requires --jinja", vLLM "... requires --enable-auto-tool-choice".
    Other errors (a 400 about one malformed message, say) are not taken for it.
    """
    from crewgraph.errors import LLMError

    if not isinstance(exc, LLMError):
        return False
    return not llm.supports_function_calling() or _UNSUPPORTED.search(str(exc)) is not None


_TEXT_ONLY_KEY = "text_tool_models"
"""``RunState.extras`` key: the ``rate_limit_key``s of models that rejected tools in this run."""


def remember_text_only(extras: dict[str, Any], llm: Any) -> None:
    """Note for the rest of the run that this model (endpoint and name) rejected tools.

    The real client remembers by itself, but a model given by name is a new
    client in every step, a custom client may not remember, and a replayed
    cassette answers from the tape; without this each step would send one
    rejected request first (and a replay would not match the recording).
    """
    extras.setdefault(_TEXT_ONLY_KEY, set()).add(llm.rate_limit_key)


def known_text_only(extras: dict[str, Any], llm: Any) -> bool:
    """True when this model rejected tools earlier in the run (see :func:`remember_text_only`)."""
    return llm.rate_limit_key in extras.get(_TEXT_ONLY_KEY, ())
