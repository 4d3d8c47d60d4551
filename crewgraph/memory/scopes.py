"""Scope paths: ``/``, ``/project/alpha``... normalised one way everywhere.

Storage filters subtrees by matching one value of a record's *ancestor list*
(``/a/b`` is stored with ``["/", "/a", "/a/b"]``), so every path must be
spelled identically: leading slash, no trailing slash, no empty segments.
"""

from __future__ import annotations

__all__ = [
    "is_within",
    "join_scope",
    "normalize_scope",
    "scope_ancestors",
    "scope_depth",
]


def normalize_scope(path: str | None) -> str:
    """``"project//alpha/"`` -> ``"/project/alpha"``; ``None``/``""`` -> ``"/"``.

    ``.`` segments are dropped and ``..`` is refused, because a scope view
    must never be able to name a path outside its subtree.
    """
    if path is None:
        return "/"
    parts = [p.strip() for p in str(path).replace("\\", "/").split("/")]
    clean: list[str] = []
    for part in parts:
        if not part or part == ".":
            continue
        if part == "..":
            raise ValueError(f"scope paths may not contain '..': {path!r}")
        clean.append(part)
    return "/" + "/".join(clean)


def join_scope(root: str | None, inner: str | None) -> str:
    """``join_scope("/agent/x", "notes")`` -> ``"/agent/x/notes"`` (inner is always relative)."""
    base = normalize_scope(root)
    rest = normalize_scope(inner)
    if rest == "/":
        return base
    if base == "/":
        return rest
    return base + rest


def scope_ancestors(path: str) -> list[str]:
    """Every scope that contains ``path``, root first, including ``path`` itself."""
    norm = normalize_scope(path)
    out = ["/"]
    current = ""
    for part in norm.strip("/").split("/"):
        if part:
            current = f"{current}/{part}"
            out.append(current)
    return out


def scope_depth(path: str) -> int:
    """``/`` is 0, ``/a`` is 1, ``/a/b`` is 2."""
    norm = normalize_scope(path)
    return 0 if norm == "/" else norm.count("/")


def is_within(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or below it (whole segments: ``/a/bc`` is not in ``/a/b``)."""
    p, r = normalize_scope(path), normalize_scope(root)
    return r == "/" or p == r or p.startswith(r + "/")
