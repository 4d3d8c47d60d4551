"""Reading back the DOT the exporters write (one statement per line, graphviz-package style),
so tests can check attributes without depending on quoting or attribute order."""

from __future__ import annotations

import html
import re

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)")


def _read_id(text: str, i: int) -> tuple[str, int]:
    """A DOT ID at ``text[i]``: quoted (unescaped: \\" -> "), HTML <...> (kept with its
    outer brackets), or bare."""
    if text[i] == '"':
        j, out = i + 1, []
        while text[j] != '"':
            if text[j] == "\\" and text[j + 1] == '"':
                out.append('"')
                j += 2
                continue
            out.append(text[j])
            j += 1
        return "".join(out), j + 1
    if text[i] == "<":
        depth, j = 0, i
        while True:
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                return text[i:j], j
    match = _BARE.match(text, i)
    assert match, f"no DOT id at {text[i:i + 30]!r}"
    return match.group(0), match.end()


def _attrs(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    i = 0
    while i < len(text):
        if text[i] in " \t":
            i += 1
            continue
        key, i = _read_id(text, i)
        assert text[i] == "=", text[i:]
        values[key], i = _read_id(text, i + 1)
    return values


def statements(dot: str) -> list[tuple[list[str], dict[str, str]]]:
    """``([node] or [src, dst], attrs)`` for each node and edge line of ``dot``."""
    found = []
    for line in dot.splitlines():
        line = line.strip()
        if not line or line[0] not in '"_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.':
            continue
        if line.split(" ", 1)[0] in ("graph", "node", "edge", "digraph", "subgraph", "label", "}"):
            continue
        ids, i = [], 0
        while True:
            name, i = _read_id(line, i)
            ids.append(name)
            if line.startswith(" -> ", i):
                i += 4
                continue
            break
        rest = line[i:].strip()
        attrs = _attrs(rest[1:-1]) if rest.startswith("[") else {}
        found.append((ids, attrs))
    return found


def node_attrs(dot: str, node_id: str) -> dict[str, str]:
    for ids, attrs in statements(dot):
        if ids == [node_id]:
            return attrs
    raise AssertionError(f"node {node_id!r} not in DOT")


def edge_attrs(dot: str, src: str, dst: str) -> dict[str, str] | None:
    for ids, attrs in statements(dot):
        if ids == [src, dst]:
            return attrs
    return None


def node_ids(dot: str) -> list[str]:
    return [ids[0] for ids, _ in statements(dot) if len(ids) == 1]


def label_text(attrs: dict[str, str]) -> str:
    """A node's label as the reader sees it: HTML tags dropped, <BR/> as newline, entities
    decoded; a plain label with its \\n breaks as newlines."""
    label = attrs.get("label", "")
    if label.startswith("<") and label.endswith(">"):
        inner = label[1:-1].replace("<BR/>", "\n")
        return html.unescape(re.sub(r"<[^>]*>", "", inner))
    return label.replace("\\n", "\n").replace("\\\\", "\\")
