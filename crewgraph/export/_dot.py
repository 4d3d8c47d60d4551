"""Building DOT with the ``graphviz`` package, plus the text helpers every label needs.

The package gives us the document model (graphs, clusters, nodes, attribute
quoting); what it leaves to the caller is what trips people up, so it lives
here once:

- text from users and models (task names, tool arguments, errors) goes into
  *plain* attributes through :func:`text`: backslashes made literal (``\\N``
  in a task name must not become the node name), control characters dropped,
  and marked "not HTML" so a value like ``<b>`` is never read as an
  HTML-like label;
- HTML-like labels are made only by :func:`html_label`, which escapes every
  piece it is given (``& < > "``);
- edges are written with :func:`edge`, because ``Digraph.edge`` reads
  ``a:b`` as node ``a``, port ``b`` -- and our node ids contain colons.

The output is deterministic (same graph, same text), so DOT stays diffable.
"""

from __future__ import annotations

import html
import itertools
import re
import textwrap
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import graphviz

__all__ = [
    "ELLIPSIS",
    "Attrs",
    "clean",
    "edge",
    "html_label",
    "label_lines",
    "legend_cluster",
    "name",
    "new_digraph",
    "node",
    "same_rank",
    "shorten",
    "text",
    "tooltip",
]

Attrs = Mapping[str, str | int | float | None]

_WS_RE = re.compile(r"\s+")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
ELLIPSIS = "…"


def clean(value: object) -> str:
    """``value`` as text without the control characters Graphviz and XML reject."""
    return _CONTROL_RE.sub("", str(value))


def shorten(value: object, max_len: int) -> str:
    """Whitespace collapsed to single spaces and cut at ``max_len`` characters with an ellipsis."""
    flat = _WS_RE.sub(" ", clean(value)).strip()
    if len(flat) <= max_len:
        return flat
    return flat[: max(1, max_len - 1)].rstrip() + ELLIPSIS


def label_lines(value: object, *, width: int = 24, max_len: int = 60) -> list[str]:
    """A long label as a few wrapped lines: truncated to ``max_len``, wrapped at ``width``.

    Task names and descriptions can be sentences; unwrapped they make boxes
    hundreds of pixels wide and the layout unreadable. Lines break between words only (a
    ``research_task`` split into ``research_ta`` / ``sk`` reads as two names); a word longer
    than ``width`` keeps its line, and one longer than ``max_len`` is cut with an ellipsis.
    """
    short = _cut_at_word(value, max_len)
    return textwrap.wrap(short, width=width, break_long_words=False, break_on_hyphens=False) or [""]


def _cut_at_word(value: object, max_len: int) -> str:
    """Like :func:`shorten`, but the cut falls between words when there is a space to cut at."""
    flat = _WS_RE.sub(" ", clean(value)).strip()
    if len(flat) <= max_len:
        return flat
    head = flat[: max(1, max_len - 1)]
    if " " in head and flat[len(head)] != " ":
        head = head.rsplit(" ", 1)[0]
    return head.rstrip() + ELLIPSIS


def _escaped_lines(value: object, backslash: str) -> str:
    lines = clean(value).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\\n".join(line.replace("\\", backslash) for line in lines)


def text(value: object) -> str:
    """A plain (non-HTML) DOT string: each line of ``value`` literal, lines joined by ``\\n``."""
    from graphviz import nohtml

    return nohtml(_escaped_lines(value, "\\\\"))


def tooltip(value: object) -> str:
    """Like :func:`text`, for ``tooltip``: Graphviz (2.43) expands escapes in a tooltip
    twice, so a literal backslash is written as four (two would turn ``a\\N`` into the
    node's name)."""
    from graphviz import nohtml

    return nohtml(_escaped_lines(value, "\\" * 4))


def html_label(rows: Iterable[tuple[str, str]], *, left: bool = False) -> str:
    """An HTML-like label of ``(style, text)`` rows, each escaped. Styles: ``title`` (bold),
    ``plain``, ``arg`` (italic, dark), ``small`` (grey, smaller), ``error`` (dark red, smaller);
    ``left=True`` justifies every line to the left (a box title)."""
    parts = []
    for style, value in rows:
        safe = html.escape(_WS_RE.sub(" ", clean(value)).strip(), quote=True)
        if not safe:
            continue
        if style == "title":
            safe = f"<B>{safe}</B>"
        elif style == "arg":
            safe = f'<FONT COLOR="#343a40"><I>{safe}</I></FONT>'
        elif style == "small":
            safe = f'<FONT POINT-SIZE="9" COLOR="#495057">{safe}</FONT>'
        elif style == "error":
            safe = f'<FONT POINT-SIZE="9" COLOR="#842029">{safe}</FONT>'
        parts.append(safe)
    if left:  # each line (the last too: a trailing break) flush left
        return "<" + "".join(f'{part}<BR ALIGN="LEFT"/>' for part in parts or [" "]) + ">"
    return "<" + "<BR/>".join(parts or [" "]) + ">"


def name(node_id: str) -> str:
    """A node's DOT name: ``node_id`` as it is (names are not escStrings: backslashes are
    literal there), never read as HTML."""
    from graphviz import nohtml

    return nohtml(clean(node_id))


def _strings(values: Attrs) -> dict[str, str]:
    return {k: v if isinstance(v, str) else str(v) for k, v in values.items() if v is not None}


def new_digraph(name: str, graph_attr: Attrs, node_attr: Attrs, edge_attr: Attrs) -> graphviz.Digraph:
    """An empty directed graph named ``name`` with these defaults."""
    import graphviz

    return graphviz.Digraph(
        name=text(name),
        graph_attr=_strings(graph_attr),
        node_attr=_strings(node_attr),
        edge_attr=_strings(edge_attr),
    )


def node(g: graphviz.Digraph, node_id: str, values: Attrs) -> None:
    """Add node ``node_id``; its SVG element gets ``id="<node_id>"`` (for pages that map clicks)."""
    attrs = _strings(values)
    attrs.setdefault("id", text(node_id))
    g.node(name(node_id), _attributes=attrs)


def edge(g: graphviz.Digraph, src: str, dst: str, values: Attrs) -> None:
    """Add ``src -> dst`` (ids taken literally: no ``node:port`` parsing)."""
    from graphviz.quoting import attr_list, quote

    g.body.append(f"\t{quote(name(src))} -> {quote(name(dst))}{attr_list(attributes=_strings(values))}\n")


def same_rank(g: graphviz.Digraph, ids: Iterable[str]) -> None:
    """Keep ``ids`` on one rank (one row top-to-bottom), in the given order."""
    from graphviz.quoting import quote

    names = " ".join(quote(name(i)) for i in ids)
    g.body.append(f"\t{{rank=same; {names}}}\n")


def legend_cluster(
    g: graphviz.Digraph, name: str, title: str, entries: list[tuple[str, dict[str, str | int | float | None]]]
) -> None:
    """A dashed ``cluster_<name>`` box holding one sample node per entry, kept in the
    given order left to right (same rank, chained by invisible edges; without them
    dot is free to reverse the row)."""
    ids = [f"__{name}_{key}" for key, _ in entries]
    with g.subgraph(name=f"cluster_{name}") as sub:
        sub.attr(label=text(title), fontsize="10", style="dashed", id=text(f"cluster_{name}"))
        for node_id, (_key, values) in zip(ids, entries, strict=True):
            node(sub, node_id, values)
        if len(ids) > 1:
            same_rank(sub, ids)
            for a, b in itertools.pairwise(ids):
                edge(sub, a, b, {"style": "invis"})
