"""Identifiers for runs and nodes.

Node ids are derived from stable names (task names, method names) so that a
resumed run finds the same ids in its checkpoint; run ids are random.
"""

from __future__ import annotations

import re
import uuid

__all__ = ["new_run_id", "slugify"]

_SLUG_RE = re.compile(r"[^a-zA-Z0-9_]+")


def new_run_id() -> str:
    """Return a fresh, random run id (32 hex characters)."""
    return uuid.uuid4().hex


def slugify(text: str, max_len: int = 40) -> str:
    """Turn free text (a task description, a tool name) into an id-safe slug: lower case, each
    run of characters other than ``[a-zA-Z0-9_]`` one ``_``, no ``_`` at either end, at most
    ``max_len`` characters, ``"x"`` if nothing is left.

    Only the first ``max_len`` characters of the slug are kept, so only a head of the text is
    read when that head already gives them (a task's key is slugged from its description,
    often hundreds of characters: the whole text through the regex was most of a key's cost).
    Reading a head gives the same slug: lowering is per character (Python's one context rule,
    the final sigma, gives a non-ASCII letter either way), a run cut at the head's end is still
    one ``_``, and the whitespace ``strip()`` would remove turns into ``_`` that is stripped."""
    if max_len <= 0:  # not a length a caller means; kept as it always was
        return _SLUG_RE.sub("_", text.strip().lower()).strip("_")[:max_len].rstrip("_") or "x"
    head = text[: 2 * max_len + 16]
    slug = _SLUG_RE.sub("_", head.lower()).lstrip("_")
    if len(slug) < max_len and len(head) < len(text):  # the head gave too little: read it all
        slug = _SLUG_RE.sub("_", text.lower()).lstrip("_")
    return slug[:max_len].rstrip("_") or "x"
