"""Best-effort recovery of a JSON value from what a text-only model actually wrote.

Models asked for JSON answer with fenced ```json blocks, a sentence before or
after the object, trailing commas, or an object cut off by ``max_tokens``.
These helpers recover the value when the intent is unambiguous; they never
invent data beyond closing what was left open (a cut-off string is closed
where it stops; a member cut off before its value is dropped).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["extract_json"]

_FENCE = re.compile(r"```[ \t]*(?:json[c5]?|JSON)?[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_MAX_CANDIDATE_STARTS = 20
_MAX_TRIMS = 64
_CLOSERS = {"{": "}", "[": "]"}


class _NoJSON(ValueError):
    """No JSON value could be recovered; the message says why."""


def extract_json(text: str) -> Any:
    """Return the JSON value in ``text``, repairing the usual model mistakes.

    Tried in order: the whole text; the first fenced code block; the first
    ``{``/``[`` from which a complete value decodes (prose around it ignored);
    the same after removing trailing commas; finally a truncated value closed
    (open string, then open brackets) after dropping a dangling member.
    Raises ``ValueError`` describing the last problem when nothing works.
    """
    stripped = text.strip()
    if not stripped:
        raise _NoJSON("the output is empty")
    candidates = [stripped]
    fence = _FENCE.search(stripped)
    if fence is not None and fence.group(1).strip():
        candidates.insert(0, fence.group(1).strip())
    last_error = "no JSON object or array found"
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            last_error = f"{exc.msg} at position {exc.pos}"
        for fixer in (_identity, _drop_trailing_commas):
            found, value = _decode_embedded(fixer(candidate))
            if found:
                return value
        found, value = _close_truncated(candidate)
        if found:
            return value
    raise _NoJSON(last_error)


def _identity(text: str) -> str:
    return text


def _starts(text: str) -> list[int]:
    """Positions of ``{``/``[`` that could begin the answer, first ones first."""
    return [i for i, ch in enumerate(text) if ch in "{["][:_MAX_CANDIDATE_STARTS]


def _decode_embedded(text: str) -> tuple[bool, Any]:
    """Decode the first complete JSON value starting at a bracket, ignoring text after it."""
    decoder = json.JSONDecoder()
    for start in _starts(text):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        return True, value
    return False, None


def _drop_trailing_commas(text: str) -> str:
    """Remove commas directly before ``}``/``]`` (outside strings): ``[1, 2,]`` -> ``[1, 2]``."""
    out: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped = ch == "\\" and not escaped
            if ch == '"' and not escaped:
                in_string = False
            out.append(ch)
            continue
        if ch == '"':
            in_string = True
        elif ch in "}]":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()
        out.append(ch)
    return "".join(out)


def _scan(text: str) -> tuple[list[str], bool, list[int]]:
    """Bracket stack, whether a string is open at the end, and safe cut points.

    Cut points are positions right after an opening bracket or right before a
    separating comma, outside strings: cutting there leaves a prefix that
    becomes valid once closed.
    """
    stack: list[str] = []
    cuts: list[int] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
            cuts.append(i + 1)
        elif ch in "}]":
            if stack:
                stack.pop()
        elif ch == "," and stack:
            cuts.append(i)
    return stack, in_string, cuts


def _close(prefix: str) -> str | None:
    """Close an open string and every open bracket of ``prefix``; None if nothing is open."""
    stack, in_string, _ = _scan(prefix)
    body = prefix
    if in_string:
        if body.endswith("\\"):
            body = body[:-1]
        body += '"'
    body = body.rstrip()
    if body.endswith((",", ":")):
        body = body[:-1].rstrip()
    if not stack:
        return None
    return body + "".join(_CLOSERS[b] for b in reversed(stack))


def _close_truncated(text: str) -> tuple[bool, Any]:
    """Recover a value cut off mid-way: close it, dropping incomplete trailing members."""
    starts = _starts(text)
    if not starts:
        return False, None
    body = _drop_trailing_commas(text[starts[0] :].rstrip())
    _, _, cuts = _scan(body)
    for cut in [len(body), *reversed(cuts)][:_MAX_TRIMS]:
        closed = _close(body[:cut])
        if closed is None:
            continue
        try:
            return True, json.loads(closed)
        except json.JSONDecodeError:
            continue
    return False, None
