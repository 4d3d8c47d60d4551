"""``slugify`` and ``Task.display_name`` read only a head of long text: the slugs (task keys, node
ids a resumed run looks up in its checkpoint) and names must be exactly those of the whole-text
versions they replaced."""

from __future__ import annotations

import random
import re

from crewgraph import Task
from crewgraph.ids import slugify

_RE = re.compile(r"[^a-zA-Z0-9_]+")


def _whole_text(text: str, max_len: int = 40) -> str:
    """The slug as it was computed before: the whole text through the regex."""
    slug = _RE.sub("_", text.strip().lower()).strip("_")
    return (slug[:max_len].rstrip("_")) or "x"


# letters whose lower case is ASCII (KELVIN SIGN), longer (DOTTED CAPITAL I), context-dependent
# (SIGMA), non-ASCII; separators of every kind, unicode whitespace, underscores
_ALPHABET = "aZ9_ _-.!\t\n\u2003\x1c\u212a\u0130\u03a3\u00df\u00e9\u4e2d"


def test_same_slug_as_the_whole_text_version() -> None:
    rng = random.Random(28)
    cases = ["", " ", "___", "task 1", "  Write a post  ", "!" * 200 + "end", "_" * 90 + "a",
             "a" + " " * 100 + "b", "\u0130" * 60, "K\u212a" * 40]
    for _ in range(600):
        n = rng.choice((rng.randrange(8), rng.randrange(40, 130), rng.randrange(200)))
        cases.append("".join(rng.choice(_ALPHABET) for _ in range(n)))
    checked = 0
    for text in cases:
        for max_len in (1, 5, 24, 40, 0, -3):
            assert slugify(text, max_len) == _whole_text(text, max_len), (text, max_len)
            checked += 1
        assert slugify(text) == _whole_text(text)
    assert checked == 6 * len(cases)


def _whole_name(description: str) -> str:
    text = " ".join(description.split())
    return text if len(text) <= 50 else text[:47] + "..."


def test_same_display_name_as_the_whole_text_version() -> None:
    rng = random.Random(50)
    cases = [" " * 159 + "a" * 60, "a" * 160 + " b", "word " * 40, "x" * 49, "y" * 51]
    for _ in range(300):
        n = rng.choice((rng.randrange(1, 60), rng.randrange(150, 400)))
        cases.append("".join(rng.choice("ab c  \t\n\u2003xyz.") for _ in range(n)))
    for description in cases:
        assert Task(description=description, expected_output="e").display_name() == _whole_name(description)
