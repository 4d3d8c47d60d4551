"""How the test doubles cut a reply into stream deltas.

Real models stream a reply in many small pieces; tests should see the same
shape (several chunks per turn, whitespace kept) so that code which only works
for a single chunk fails here rather than against a real server. The cut is
deterministic, and joining the pieces gives back the original text exactly.
"""

from __future__ import annotations

import re

__all__ = ["argument_pieces", "text_pieces"]

_WORD = re.compile(r"\S+\s*|\s+")


def text_pieces(text: str) -> list[str]:
    """``text`` cut after each word's trailing whitespace: ``"a b"`` -> ``["a ", "b"]``."""
    return _WORD.findall(text)


def argument_pieces(arguments: str, parts: int = 3) -> list[str]:
    """Tool-call JSON cut into up to ``parts`` fragments, as servers send arguments."""
    if not arguments:
        return []
    size = max(1, -(-len(arguments) // parts))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)]
