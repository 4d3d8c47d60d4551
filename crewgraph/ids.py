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
    """Turn free text (a task description, a tool name) into an id-safe slug."""
    slug = _SLUG_RE.sub("_", text.strip().lower()).strip("_")
    return (slug[:max_len].rstrip("_")) or "x"
