"""The one argument that says what a tool call was about, short enough for a node label.

``search_web(query="rust async runtimes", max_results=5)`` is drawn as
``search_web`` over ``"rust async runtimes"``: the query tells the reader
which call this was; ``max_results`` does not. The argument is chosen by name
(the names tools use for their subject: query, url, path, command...), else
the first text argument, else the first argument. Paths keep their end (the
file name), URLs lose their scheme, everything else keeps its start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from crewgraph.export._dot import ELLIPSIS, shorten

__all__ = ["KEY_ARG_MAX", "PREFERRED_ARGS", "call_arguments", "format_key_arg", "key_argument"]

KEY_ARG_MAX = 30
PREFERRED_ARGS = (
    "query",
    "search_query",
    "q",
    "question",
    "url",
    "website_url",
    "website",
    "file_path",
    "path",
    "file",
    "filename",
    "directory",
    "directory_path",
    "dir",
    "command",
    "cmd",
    "sql",
    "code",
    "expression",
    "prompt",
    "topic",
    "text",
    "name",
    "id",
)
_PATHISH = ("path", "file", "dir", "folder")


def call_arguments(info: Mapping[str, Any], node: Any = None) -> dict[str, Any] | None:
    """The arguments of a tool call: the record's ``info["args"]`` (what the tool ran with,
    after hooks), else the node's own call (``node.call.arguments``), else None."""
    args = info.get("args")
    if isinstance(args, dict):
        return args
    call = getattr(node, "call", None)
    raw = getattr(call, "arguments", None)
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw or "{}")
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def key_argument(args: Mapping[str, Any] | None) -> tuple[str, Any] | None:
    """``(name, value)`` of the argument that identifies the call, or None when there is none."""
    if not args:
        return None
    lowered = {str(k).lower(): k for k in args}
    for name in PREFERRED_ARGS:
        key = lowered.get(name)
        if key is not None and args[key] not in (None, "", [], {}):
            return str(key), args[key]
    for key, value in args.items():
        if isinstance(value, str) and value.strip():
            return str(key), value
    for key, value in args.items():
        if value not in (None, "", [], {}):
            return str(key), value
    return None


def format_key_arg(name: str, value: Any, max_len: int = KEY_ARG_MAX) -> str:
    """``value`` on one line and at most ``max_len`` characters: strings quoted, paths cut at
    the start (the file name is the informative end), URLs without ``https://``."""
    if isinstance(value, str):
        flat = shorten(value, 10_000)
        if flat.startswith(("http://", "https://")):
            flat = flat.split("://", 1)[1].removeprefix("www.")
            return shorten(flat, max_len)
        pathish = any(p in name.lower() for p in _PATHISH) or ("/" in flat and " " not in flat)
        if pathish:  # unquoted; the end (the file name) is what tells calls apart
            return flat if len(flat) <= max_len else ELLIPSIS + flat[-(max_len - 1) :]
        return f'"{shorten(flat, max(3, max_len - 2))}"'
    try:
        dumped = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    except (TypeError, ValueError):
        dumped = repr(value)
    return shorten(dumped, max_len)
