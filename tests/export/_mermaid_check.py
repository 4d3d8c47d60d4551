"""A small structural validator for the Mermaid flowcharts crewgraph writes (no mermaid CLI
here): header, node and edge statements, balanced subgraph/end, ids defined before use,
labels free of characters Mermaid would read as syntax."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ID = r"n_[A-Za-z0-9_]+"
_PAIRS = {"[": "]", "([": "])", "[[": "]]", "[(": ")]", "((": "))", "{{": "}}", "{": "}", "(": ")", "[/": "/]", ">": "]"}
_NODE = re.compile(rf'^({_ID})(\(\[|\[\[|\[\(|\(\(|\{{\{{|\[/|\[|\{{|\(|>)"([^"]*)"(\]\)|\]\]|\)\]|\)\)|\}}\}}|/\]|\\\]|\]|\}}|\))$')
_EDGE = re.compile(rf'^({_ID}) (-->|==>|-\.->)(?:\|"([^"]*)"\|)? ({_ID})$')
_SUBGRAPH = re.compile(r'^subgraph (task_[0-9]+)\["([^"]*)"\]$')
_CLASSDEF = re.compile(r"^classDef (look[0-9]+) [a-z-]+:[^ ,]+(?:,[a-z-]+:[^,]+)*$")
_CLASS = re.compile(rf"^class ({_ID}(?:,{_ID})*) (look[0-9]+)$")
_ENTITY = re.compile(r"#[0-9]+;")


@dataclass
class Flowchart:
    direction: str
    nodes: dict[str, str] = field(default_factory=dict)  # id -> label (entities decoded)
    edges: list[tuple[str, str, str, str | None]] = field(default_factory=list)  # (src, arrow, dst, label)
    subgraphs: dict[str, list[str]] = field(default_factory=dict)  # subgraph id -> node ids
    subgraph_titles: dict[str, str] = field(default_factory=dict)


def _label(text: str, where: str) -> str:
    bare = text.replace("<br/>", "\n")
    for bad in '<>"`&|[]{}':
        assert bad not in bare, f"unescaped {bad!r} in label {text!r} ({where})"
    assert "#" not in _ENTITY.sub("", bare), f"stray '#' in label {text!r} ({where})"
    return _ENTITY.sub(lambda m: chr(int(m.group(0)[1:-1])), bare)


def check_mermaid(text: str) -> Flowchart:
    """Parse ``text`` or fail an assertion naming the bad line."""
    lines = text.splitlines()
    header = re.match(r"^flowchart (TB|TD|BT|LR|RL)$", lines[0])
    assert header, f"bad header {lines[0]!r}"
    chart = Flowchart(direction=header.group(1))
    stack: list[str] = []
    classes: set[str] = set()
    for number, raw in enumerate(lines[1:], start=2):
        line = raw.strip()
        where = f"line {number}: {raw!r}"
        if not line or line.startswith("%%"):
            assert "{" not in line and "}" not in line, f"directive-like comment ({where})"
            continue
        if (m := _SUBGRAPH.match(line)) is not None:
            assert not stack, f"nested subgraph ({where})"
            assert m.group(1) not in chart.subgraphs, f"subgraph id reused ({where})"
            stack.append(m.group(1))
            chart.subgraphs[m.group(1)] = []
            chart.subgraph_titles[m.group(1)] = _label(m.group(2), where)
        elif line == "end":
            assert stack, f"'end' without subgraph ({where})"
            stack.pop()
        elif (m := _NODE.match(line)) is not None:
            node_id, opening, label, closing = m.groups()
            assert _PAIRS[opening] == closing or (opening, closing) == ("[/", "\\]"), f"brackets ({where})"
            assert node_id not in chart.nodes, f"node defined twice ({where})"
            chart.nodes[node_id] = _label(label, where)
            if stack:
                chart.subgraphs[stack[-1]].append(node_id)
        elif (m := _EDGE.match(line)) is not None:
            src, arrow, label, dst = m.groups()
            for end in (src, dst):
                assert end in chart.nodes, f"edge to undefined node {end} ({where})"
            chart.edges.append((src, arrow, dst, None if label is None else _label(label, where)))
        elif (m := _CLASSDEF.match(line)) is not None:
            classes.add(m.group(1))
        elif (m := _CLASS.match(line)) is not None:
            assert m.group(2) in classes, f"class used before classDef ({where})"
            for member in m.group(1).split(","):
                assert member in chart.nodes, f"class of undefined node ({where})"
        else:
            raise AssertionError(f"not a Mermaid statement crewgraph writes ({where})")
    assert not stack, f"subgraph {stack[-1]} is never closed"
    return chart
