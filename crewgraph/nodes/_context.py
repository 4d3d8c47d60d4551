"""A task's context text: the outputs of its context tasks, each under its task's name.

A sequential crew's default context (every earlier output) is a ``NodePrefix``: the
context of task *k* is that of task *k-1* plus one more output. Rebuilding it from
scratch per task is O(k) Python work, O(N^2) for the crew; ``prefix_context`` keeps the
text of the longest prefix built so far in the run state and extends it, so each task
pays for the outputs it adds (and one C-level string copy).

The entry texts themselves are kept in one append-only list per prefix pool, so a task's
prompt can hold its context as a :class:`~crewgraph._internal.shared_prompt.ContextRef`
(the first k entries of that list) after its model call rather than a copy of the text:
``prefix_context_ref`` gives both.
"""

from __future__ import annotations

from typing import Any

from crewgraph._internal.shared_prompt import ContextRef
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.reads import OutputText
from crewgraph.nodes._prompts import CONTEXT_SEPARATOR, entry_text, format_context

__all__ = ["PREFIX_CACHE_KEY", "context_entry", "entry_text", "prefix_context", "prefix_context_ref"]

PREFIX_CACHE_KEY = "_prefix_context"
"""``RunState.extras`` key of the built prefix texts (a cache of this process: never shipped)."""
_CACHE_KEY = PREFIX_CACHE_KEY


def context_entry(ctx: NodeContext, node_id: str) -> tuple[str, str] | None:
    """(task name, raw text) of one context node's output, or None if it has none yet.

    This is all a context reads of an output (``Reads.texts``): an executor may hand the
    step an :class:`OutputText` in the output's place, which gives the same pair."""
    output: Any = ctx.output_of(node_id)
    if output is None:
        return None
    text = OutputText.of(output, node_id)
    return text.name, text.raw


def prefix_context(ctx: NodeContext, prefix: NodePrefix) -> str:
    """``format_context`` of the prefix's outputs, built incrementally across a run's tasks."""
    return prefix_context_ref(ctx, prefix)[0]


def prefix_context_ref(ctx: NodeContext, prefix: NodePrefix) -> tuple[str, ContextRef | None]:
    """``prefix_context``'s text, and a ref to it in the run's shared entry list (None for a
    context of one output or less, or one built from scratch)."""
    entries_wanted = len(prefix)
    if entries_wanted <= 1:
        entry = context_entry(ctx, prefix[0]) if entries_wanted else None
        return format_context([entry] if entry else []), None
    cache: dict[int, tuple[int, str, list[str]]] = ctx.state.extras.setdefault(_CACHE_KEY, {})
    key = prefix.pool_id
    # Taken out of the cache, so that this frame holds the only reference to the text and
    # ``text +=`` below can grow it in place (CPython does for an unshared str): extending the
    # context then costs the new entries, not a copy of everything before them.
    cached = cache.pop(key, None)
    done, text, entries = cached if cached is not None and len(cached) == 3 else (0, "", [])
    del cached
    if done > entries_wanted or len(entries) != done:
        # A shorter prefix than the one built (or a list other refs extended): a new list,
        # since refs to the old one rely on its first entries never changing.
        done, text, entries = 0, "", []
    added: list[str] = []
    for i in range(done, entries_wanted):
        entry = context_entry(ctx, prefix[i])
        if entry is None:
            # An output not there (a restored run without it): build this one from scratch,
            # without caching a text that later tasks would extend wrongly.
            if done:
                cache[key] = (done, text, entries)
            return format_context([e for nid in prefix if (e := context_entry(ctx, nid))]), None
        added.append(entry_text(*entry))
    entries.extend(added)
    if done and added:
        text += CONTEXT_SEPARATOR + CONTEXT_SEPARATOR.join(added)
    elif added:
        text = CONTEXT_SEPARATOR.join(added)
    cache[key] = (entries_wanted, text, entries)
    return text, ContextRef(entries, entries_wanted, CONTEXT_SEPARATOR)
