"""Tool calls that a model wrote into its text instead of sending them natively.

Servers such as llama.cpp, llama-cpp-python, Ollama, vLLM and LM Studio accept
the ``tools`` parameter, but many open models (or chat templates the server
cannot parse) answer with the call in the message *content*. Taking that
content as the final answer makes every tool-using crew fail, so the agent
step asks :func:`find_content_calls` first and runs what it finds as ordinary
tool calls.

Formats recognised (``ContentCalls.format`` names them; ``docs/llm.md`` has examples):

========================  ==========================================================
``json``                  the whole reply is ``{"name": ..., "arguments": {...}}``
                          (or ``"parameters"``, or OpenAI's
                          ``{"type": "function", "function": {...}}``), or a list of them
``fenced_json``           the same inside a ```` ```json ```` block
``hermes``                ``<tool_call>{...}</tool_call>`` (Qwen, Hermes; closing tag
                          optional), also Qwen3-Coder's ``<function=NAME>`` XML
``mistral``               ``[TOOL_CALLS] [{...}]`` or ``[TOOL_CALLS]NAME[ARGS]{...}``
``llama``                 ``<|python_tag|>{"name": ..., "parameters": ...}`` or
                          ``<|python_tag|>NAME.call(key="value")``
``pythonic``              the whole reply is ``[NAME(key="value"), ...]`` (Llama 3.2)
``functions``             ``functions.NAME:{...}`` / ``to=functions.NAME ... {...}``
                          (Kimi, gpt-oss, functionary)
========================  ==========================================================

What counts as a call and what stays an answer:

- A reply with an explicit marker (``<tool_call>``, ``[TOOL_CALLS]``,
  ``<|python_tag|>``, ``functions.NAME``) is a call, even to a tool the agent
  does not have or with arguments that are not JSON: the tool node then answers
  with the usual "unknown tool" / "invalid arguments" message, as for a native
  call. Text before the marker is kept as the assistant's prose.
- Bare or fenced JSON is a call only when the object has the *shape* of one
  (a ``name`` plus ``arguments``/``parameters`` and nothing else): a final
  answer that is a JSON object of the task's own fields is left alone. Bare
  JSON must be the whole reply; a fenced call after some prose counts only
  when it names an offered tool.
- Anything else (prose that mentions a tool, an example inside a sentence)
  stays an answer.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crewgraph.llm._json_repair import extract_json
from crewgraph.llm.types import ToolCall

__all__ = ["UNREADABLE", "ContentCalls", "find_content_calls"]

UNREADABLE = "unreadable_tool_call"
"""Name given to a marked call whose tool name could not be read (the tool node answers that no
such tool exists and lists the real ones)."""


@dataclass(frozen=True)
class ContentCalls:
    """Calls found in a reply's text: the calls, the format they were written in, and the prose
    around them (what the conversation keeps as the assistant's text)."""

    calls: list[ToolCall]
    format: str
    prose: str = ""


_NAME_KEYS = ("name", "tool_name", "tool", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "input", "tool_input")
_EXTRA_KEYS = frozenset({"id", "type", "call_id", "index"})
_SPECIAL_TOKEN = re.compile(r"<\|(?:eot_id|eom_id|im_end|end|call|return|endoftext)\|>|</s>")
_HERMES = re.compile(r"<\|?tool_call\|?>(.*?)(?:<\|?/tool_call\|?>|</?\|?tool_call_end\|?>|$)", re.DOTALL)
_HERMES_START = re.compile(r"<\|?tool_call\|?>")
_QWEN_XML = re.compile(r"<function=([^>\s]+)>(.*?)(?:</function>|$)", re.DOTALL)
_QWEN_PARAM = re.compile(r"<parameter=([^>\s]+)>\s*(.*?)\s*(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)
_MISTRAL = "[TOOL_CALLS]"
_MISTRAL_ARGS = re.compile(r"\s*([A-Za-z0-9_.\-]+)\s*(?:\[CALL_ID\]\s*\S+?\s*)?\[ARGS\]")
_PYTHON_TAG = "<|python_tag|>"
_FUNCTIONS = re.compile(r"(?m)(?:^|to=|<\|tool_call_begin\|>)\s*functions\.([A-Za-z0-9_\-]+)")
_BETWEEN = re.compile(r"(?:\s|:\d+|<\|[a-z_]+\|>|json|:|\()*")
_FENCE = re.compile(r"```[ \t]*(?:json|tool_call|tool_code|javascript)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_CHANNEL = re.compile(r"<\|[a-z_]+\|>(?:commentary|analysis|final)?|\bto=\s*$")
_NAME_IN_TEXT = re.compile(r'"name"\s*:\s*"([^"]+)"')


def find_content_calls(content: str | None, tool_names: Sequence[str]) -> ContentCalls | None:
    """The tool calls written in ``content``, or None when it is an answer (rules above).

    ``tool_names`` are the names the model was offered (spec names); they decide
    the unmarked cases only. Calls get ids ``text_<format>_<n>``.
    """
    text = _SPECIAL_TOKEN.sub("", content or "").strip()
    if not text:
        return None
    offered = {n.lower() for n in tool_names}
    for finder in (_hermes, _mistral, _python_tag, _functions_prefix):
        found = finder(text)
        if found is not None:
            return found
    return _unmarked(text, offered)


# ------------------------------------------------------------------ marked formats
def _hermes(text: str) -> ContentCalls | None:
    start = _HERMES_START.search(text)
    if start is None:
        xml = _QWEN_XML.search(text)
        if xml is None:
            return None
        calls = [(m.group(1), json.dumps(_qwen_params(m.group(2)))) for m in _QWEN_XML.finditer(text)]
        return _result(calls, "hermes", text[: xml.start()])
    calls = []
    for match in _HERMES.finditer(text):
        body = match.group(1).strip()
        inner = _QWEN_XML.search(body)
        if inner is not None:
            calls.append((inner.group(1), json.dumps(_qwen_params(inner.group(2)))))
        else:
            calls.extend(_calls_in_json(body, marked=True))
    return _result(calls, "hermes", text[: start.start()])


def _qwen_params(body: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for match in _QWEN_PARAM.finditer(body):
        raw = match.group(2)
        try:
            params[match.group(1)] = json.loads(raw)
        except json.JSONDecodeError:
            params[match.group(1)] = raw
    return params


def _mistral(text: str) -> ContentCalls | None:
    at = text.find(_MISTRAL)
    if at == -1:
        return None
    calls: list[tuple[str, str]] = []
    for part in text[at:].split(_MISTRAL)[1:]:
        named = _MISTRAL_ARGS.match(part)
        if named is not None:  # v11+ tokenizer: NAME[ARGS]{...}
            calls.append((named.group(1), _first_object_text(part[named.end():])))
        else:
            calls.extend(_calls_in_json(part.strip(), marked=True))
    return _result(calls, "mistral", text[:at])


def _python_tag(text: str) -> ContentCalls | None:
    at = text.find(_PYTHON_TAG)
    if at == -1:
        return None
    body = text[at + len(_PYTHON_TAG):].strip()
    calls = _calls_in_json(body, marked=False) if body.startswith(("{", "[")) else []
    if not calls:
        calls = _pythonic(body) or _calls_in_json(body, marked=True)
    return _result(calls, "llama", text[:at])


def _functions_prefix(text: str) -> ContentCalls | None:
    matches = list(_FUNCTIONS.finditer(text))
    if not matches:
        return None
    calls = []
    for match in matches:
        rest = text[match.end():]
        skip = _BETWEEN.match(rest)
        rest = rest[skip.end():] if skip is not None else rest
        calls.append((match.group(1), _first_object_text(rest)))
    prose = text[: matches[0].start()]
    return _result(calls, "functions", _CHANNEL.sub("", prose))


# ------------------------------------------------------------------ unmarked formats
def _unmarked(text: str, offered: set[str]) -> ContentCalls | None:
    if text.startswith(("{", "[")):
        calls = _calls_in_json(text, marked=False, whole=True)
        if calls:
            return _result(calls, "json", "")
        pythonic = _pythonic(text, whole=True)
        if pythonic and all(_bare(n).lower() in offered for n, _ in pythonic):
            return _result(pythonic, "pythonic", "")
        return None
    fences = list(_FENCE.finditer(text))
    if not fences:
        return None
    calls = []
    for fence in fences:
        calls.extend(_calls_in_json(fence.group(1).strip(), marked=False, whole=True))
    if not calls:
        return None
    prose = text[: fences[0].start()]
    only_fences = not _FENCE.sub("", text).strip()
    if only_fences or all(_bare(n).lower() in offered for n, _ in calls):
        return _result(calls, "fenced_json", prose)
    return None


# ------------------------------------------------------------------ pieces
def _calls_in_json(body: str, *, marked: bool, whole: bool = False) -> list[tuple[str, str]]:
    """(name, arguments JSON) pairs from JSON text holding one call, a list of calls, or several
    objects one after another. Under a marker, an object that does not decode still yields a
    call (its name if readable, the raw text as arguments) so the model hears what was wrong."""
    values, end = _decode_all(body)
    if whole and body[end:].strip():
        return []
    calls = []
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            call = _call_shape(item, strict=not marked)
            if call is None:
                return [] if not marked else [_unreadable(body)]
            calls.append(call)
    if not calls and marked and body.strip():
        return [_repaired(body)]
    return calls


def _decode_all(body: str) -> tuple[list[Any], int]:
    decoder = json.JSONDecoder()
    values: list[Any] = []
    pos = 0
    while True:
        while pos < len(body) and body[pos] in " \t\r\n;,":
            pos += 1
        if pos >= len(body) or body[pos] not in "[{":
            return values, pos
        try:
            value, pos = decoder.raw_decode(body, pos)
        except json.JSONDecodeError:
            return values, pos
        values.append(value)


def _call_shape(item: Any, *, strict: bool) -> tuple[str, str] | None:
    """``(name, arguments)`` when ``item`` is shaped like a call; strict (unmarked) shapes allow
    only ``name`` + ``arguments``/``parameters`` (plus ``id``/``type``), nothing else."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict) and set(item) <= {"function", *_EXTRA_KEYS}:
        item = function
    keys = set(item)
    name_key = next((k for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    arg_key = next((k for k in _ARG_KEYS if k in item), None)
    if name_key is None:
        return None
    if strict and (name_key != "name" or arg_key not in ("arguments", "parameters")):
        return None
    if keys - {name_key, *_EXTRA_KEYS} - ({arg_key} if arg_key else set()):
        return None
    args = item.get(arg_key) if arg_key else {}
    return _bare(item[name_key]), _arguments_text(args)


def _arguments_text(args: Any) -> str:
    if args is None:
        return "{}"
    if isinstance(args, str):
        try:
            decoded = json.loads(args)
        except json.JSONDecodeError:
            return args  # the tool node explains that the arguments are not JSON
        return json.dumps(decoded) if isinstance(decoded, dict) else args
    return json.dumps(args)


def _first_object_text(rest: str) -> str:
    """The JSON object at the start of ``rest`` as JSON text (or the raw text, for the tool node
    to reject as invalid arguments)."""
    stripped = rest.lstrip()
    if not stripped:
        return "{}"
    try:
        value, _ = json.JSONDecoder().raw_decode(stripped)
    except json.JSONDecodeError:
        return stripped.split("\n", 1)[0].strip()
    return json.dumps(value)


def _pythonic(body: str, *, whole: bool = False) -> list[tuple[str, str]]:
    """Calls written as Python: ``[a(x=1), b(y="z")]``, ``a.call(x=1)``; keyword arguments with
    literal values only (anything else is not read as a call)."""
    source = body.strip().rstrip(";")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return []
    nodes = tree.body.elts if isinstance(tree.body, ast.List | ast.Tuple) else [tree.body]
    if whole and not isinstance(tree.body, ast.List):
        return []
    calls = []
    for node in nodes:
        if not isinstance(node, ast.Call) or node.args:
            return []
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "call" and isinstance(func.value, ast.Name):
            name = func.value.id
        elif isinstance(func, ast.Name):
            name = func.id
        else:
            return []
        try:
            args = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
        except (ValueError, SyntaxError):
            return []
        calls.append((name, json.dumps(args)))
    return calls


def _repaired(body: str) -> tuple[str, str]:
    """A marked call whose JSON is damaged (small models drop a closing brace, or stop at
    ``max_tokens``): repaired when the intent is clear, else handed on unreadable."""
    start = body.find("{")
    if start != -1:
        candidate = body[start:].rstrip()
        missing = candidate.count("{") - candidate.count("}")
        for attempt in ([candidate + "}" * missing] if missing > 0 else []) + [candidate]:
            try:
                call = _call_shape(extract_json(attempt), strict=False)
            except ValueError:
                continue
            if call is not None:
                return call
    return _unreadable(body)


def _unreadable(body: str) -> tuple[str, str]:
    named = _NAME_IN_TEXT.search(body)
    return (_bare(named.group(1)) if named else UNREADABLE, body.strip() or "{}")


def _bare(name: str) -> str:
    """Tool name without a ``functions.`` namespace or decoration models put around it."""
    name = name.strip().strip("`'\"")
    return name[len("functions."):] if name.startswith("functions.") else name


def _result(calls: list[tuple[str, str]], fmt: str, prose: str) -> ContentCalls | None:
    if not calls:
        return None
    return ContentCalls(
        calls=[ToolCall(id=f"text_{fmt}_{i}", name=name, arguments=args) for i, (name, args) in enumerate(calls)],
        format=fmt,
        prose=prose.strip(),
    )
