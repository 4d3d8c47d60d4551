"""Read JSONC (JSON with ``//`` and ``/* */`` comments and trailing commas), keeping lines.

CrewAI's JSON-first projects (``crew.jsonc``, ``agents/<name>.jsonc``) are
JSONC. The maintained parsers on PyPI (json5, pyjson5, commentjson,
jsonc-parser) return plain data without the position of each key, and an
error three screens down an agent file should say which line it is on. So:
comments and trailing commas are blanked out *in place* (same length, newlines
kept), the result is parsed by the standard ``json`` module (whose syntax
errors carry the line and column of the original file), and one more pass over
the same text records the line of every object key and array item, refusing
duplicate keys (``json`` keeps the last one silently).
"""

from __future__ import annotations

import bisect
import json
from pathlib import Path
from typing import Any

from crewgraph._internal.yaml_limits import MAX_CONFIG_BYTES, read_bounded
from crewgraph.errors import ConfigurationError

__all__ = ["JsoncDocument", "load_jsonc", "parse_jsonc", "strip_jsonc"]

KeyPath = tuple[Any, ...]


class JsoncDocument:
    """Parsed data plus the line of each key path (``("tasks", 0, "agent")`` -> 12)."""

    def __init__(self, data: Any, lines: dict[KeyPath, int], shown: str) -> None:
        self.data = data
        self.lines = lines
        self.shown = shown

    def where(self, *keys: Any) -> str:
        """``file:line`` of the deepest known prefix of ``keys`` (``file`` alone if none)."""
        for end in range(len(keys), 0, -1):
            line = self.lines.get(tuple(keys[:end]))
            if line is not None:
                return f"{self.shown}:{line}"
        return self.shown


def _line_finder(text: str) -> Any:
    starts = [i for i, ch in enumerate(text) if ch == "\n"]
    return lambda pos: bisect.bisect_left(starts, pos) + 1


def strip_jsonc(text: str, shown: str = "<jsonc>") -> str:
    """``text`` with comments and trailing commas replaced by spaces (positions unchanged)."""
    out = list(text)
    n = len(text)
    i = 0
    in_string = False
    last_comma: int | None = None  # index of a ',' followed so far only by blanks/comments
    line_of = None
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            last_comma = None
        elif ch == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        elif ch == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                line_of = line_of or _line_finder(text)
                raise ConfigurationError(f"{shown}:{line_of(i)}: invalid JSON: unterminated /* comment")
            for j in range(i, end + 2):
                if out[j] != "\n":
                    out[j] = " "
            i = end + 2
            continue
        elif ch == ",":
            last_comma = i
        elif ch in "}]":
            if last_comma is not None:
                out[last_comma] = " "
            last_comma = None
        elif not ch.isspace():
            last_comma = None
        i += 1
    return "".join(out)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _record(text: str, i: int, path: KeyPath, lines: dict[KeyPath, int], line_of: Any, shown: str) -> int:
    """Walk the value at ``i`` (text already known to be valid JSON); returns its end."""
    i = _skip(text, i)
    ch = text[i]
    if ch == "{":
        i = _skip(text, i + 1)
        if text[i] == "}":
            return i + 1
        seen: set[str] = set()
        while True:
            i = _skip(text, i)
            key, end = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
            if key in seen:
                where = ".".join(str(p) for p in path)
                raise ConfigurationError(
                    f"{shown}:{line_of(i)}: duplicate key {key!r}" + (f" in {where}" if where else "")
                )
            seen.add(key)
            lines[(*path, key)] = line_of(i)
            i = _skip(text, end) + 1  # past ':'
            i = _skip(text, _record(text, i, (*path, key), lines, line_of, shown))
            if text[i] == "}":
                return i + 1
            i += 1  # ','
    if ch == "[":
        i = _skip(text, i + 1)
        if text[i] == "]":
            return i + 1
        index = 0
        while True:
            i = _skip(text, i)
            lines[(*path, index)] = line_of(i)
            i = _skip(text, _record(text, i, (*path, index), lines, line_of, shown))
            index += 1
            if text[i] == "]":
                return i + 1
            i += 1
    _, end = json.JSONDecoder().raw_decode(text, i)
    return int(end)


def parse_jsonc(text: str, shown: str = "<jsonc>") -> JsoncDocument:
    """Parse JSONC ``text``; errors say ``shown:line: invalid JSON: ...``."""
    clean = strip_jsonc(text, shown)
    try:
        data = json.loads(clean)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"{shown}:{exc.lineno}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ConfigurationError(f"{shown}: invalid JSON: nested too deeply") from None
    lines: dict[KeyPath, int] = {}
    try:
        _record(clean, 0, (), lines, _line_finder(clean), shown)
    except RecursionError:
        raise ConfigurationError(f"{shown}: invalid JSON: nested too deeply") from None
    return JsoncDocument(data, lines, shown)


def load_jsonc(path: Path, shown: str, what: str) -> JsoncDocument:
    """Read (at most MAX_CONFIG_BYTES) and parse the JSONC file at ``path``."""
    return parse_jsonc(read_bounded(path, shown, what, MAX_CONFIG_BYTES), shown)
