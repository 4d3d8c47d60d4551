"""A task's context text: the outputs of its context tasks, each under its task's name.

A sequential crew's default context (every earlier output) is a ``NodePrefix``: the
context of task *k* is that of task *k-1* plus one more output. Rebuilding it from
scratch per task is O(k) Python work, O(N^2) for the crew; ``prefix_context`` keeps the
text of the longest prefix built so far in the run state and extends it, so each task
pays for the outputs it adds (and one C-level string copy).
"""

from __future__ import annotations

from typing import Any

from crewgraph.graph.context import NodeContext
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.nodes._prompts import CONTEXT_SEPARATOR, format_context

__all__ = ["context_entry", "prefix_context"]

_CACHE_KEY = "_prefix_context"


def context_entry(ctx: NodeContext, node_id: str) -> tuple[str, str] | None:
    """(task name, raw text) of one context node's output, or None if it has none yet."""
    output: Any = ctx.output_of(node_id)
    if output is None:
        return None
    name = getattr(output, "name", None) or getattr(output, "summary", "") or node_id
    return name, getattr(output, "raw", str(output))


def prefix_context(ctx: NodeContext, prefix: NodePrefix) -> str:
    """``format_context`` of the prefix's outputs, built incrementally across a run's tasks."""
    entries_wanted = len(prefix)
    if entries_wanted <= 1:
        entry = context_entry(ctx, prefix[0]) if entries_wanted else None
        return format_context([entry] if entry else [])
    cache: dict[int, tuple[int, str]] = ctx.state.extras.setdefault(_CACHE_KEY, {})
    key = prefix.pool_id
    done, text = cache.get(key, (0, ""))
    if done > entries_wanted:
        done, text = 0, ""
    parts = [text] if done else []
    for i in range(done, entries_wanted):
        entry = context_entry(ctx, prefix[i])
        if entry is None:
            # An output not there (a restored run without it): build this one from scratch,
            # without caching a text that later tasks would extend wrongly.
            return format_context([e for nid in prefix if (e := context_entry(ctx, nid))])
        parts.append(f"[{entry[0]}]\n{entry[1]}")
    text = CONTEXT_SEPARATOR.join(parts)
    cache[key] = (entries_wanted, text)
    return text
