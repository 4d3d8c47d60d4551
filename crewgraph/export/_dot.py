"""Small helpers for writing Graphviz DOT text by hand.

We write DOT ourselves rather than through the ``graphviz`` package's
builder so the text is byte-for-byte deterministic (same graph, same DOT:
diffable, snapshot-testable) and so producing it needs no import at all.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping

__all__ = [
    "attrs",
    "edge_line",
    "join_lines",
    "label_lines",
    "legend_cluster",
    "node_line",
    "quote",
    "shorten",
]

_WS_RE = re.compile(r"\s+")
ELLIPSIS = "…"


def quote(text: str) -> str:
    """A DOT double-quoted string. Backslashes and quotes are escaped; real newlines
    become DOT's centred line break ``\\n``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{escaped}"'


def shorten(text: str, max_len: int) -> str:
    """Whitespace collapsed to single spaces and cut at ``max_len`` characters with an ellipsis."""
    flat = _WS_RE.sub(" ", text).strip()
    if len(flat) <= max_len:
        return flat
    return flat[: max(1, max_len - 1)].rstrip() + ELLIPSIS


def label_lines(text: str, *, width: int = 24, max_len: int = 60) -> list[str]:
    """A long label as a few wrapped lines: truncated to ``max_len``, wrapped at ``width``.

    Task names and descriptions can be sentences; unwrapped they make boxes
    hundreds of pixels wide and the layout unreadable.
    """
    short = shorten(text, max_len)
    return textwrap.wrap(short, width=width, break_long_words=True) or [""]


def attrs(values: Mapping[str, str | int | float | None]) -> str:
    """``[k="v", ...]`` in the mapping's order, skipping None values."""
    parts = [f"{key}={quote(str(value))}" for key, value in values.items() if value is not None]
    return f" [{', '.join(parts)}]" if parts else ""


def node_line(node_id: str, values: Mapping[str, str | int | float | None]) -> str:
    return f"  {quote(node_id)}{attrs(values)};"


def edge_line(src: str, dst: str, values: Mapping[str, str | int | float | None]) -> str:
    return f"  {quote(src)} -> {quote(dst)}{attrs(values)};"


def join_lines(lines: Iterable[str]) -> str:
    return "\n".join(lines) + "\n"


def legend_cluster(
    name: str, title: str, entries: list[tuple[str, dict[str, str | int | float | None]]]
) -> list[str]:
    """A dashed ``cluster_<name>`` box holding one sample node per entry, kept in the
    given order left to right (same rank, chained by invisible edges; without them
    dot is free to reverse the row)."""
    lines = [
        f"  subgraph {quote('cluster_' + name)} {{",
        f'    label={quote(title)}; fontsize=10; style="dashed";',
    ]
    ids = [f"__{name}_{key}" for key, _ in entries]
    for node_id, (_key, values) in zip(ids, entries, strict=True):
        lines.append("  " + node_line(node_id, values))
    if len(ids) > 1:
        lines.append("    { rank=same; " + " ".join(quote(i) for i in ids) + "; }")
        lines.append("    " + " -> ".join(quote(i) for i in ids) + ' [style="invis"];')
    lines.append("  }")
    return lines
