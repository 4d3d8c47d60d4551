"""Run every ```python block of one Markdown file, in order, in one namespace (a notebook).

Used by ``tests/docs/test_doc_blocks.py`` in a process of its own per file (forked from one
that has imported crewgraph and the openai SDK, ``tests/_forkserver.py``), with the
network blocked but for loopback and ``OPENAI_BASE_URL`` pointing at the project's local
OpenAI-compatible server, so a block that builds ``LLM("gpt-4o-mini")`` runs offline.

A block preceded by ``<!-- fragment: why -->`` is not run (it is part of a larger program,
needs a real key or service, or shows a shell session); one preceded by
``<!-- save-as: NAME -->`` is written to the file NAME in the working directory (a server
script or module the next blocks use). Exit status 1 and the file:line of the failing block
on the first error.
"""

from __future__ import annotations

import re
import sys
import traceback
from pathlib import Path

FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)
FRAGMENT = re.compile(r"<!--\s*fragment\b[^>]*-->\s*$")
SAVE_AS = re.compile(r"<!--\s*save-as:\s*(\S+)\s*-->\s*$")


def blocks(text: str) -> list[tuple[int, str, str]]:
    """(line number of the fence, code, what to do) for each python block: "run",
    "skip" (a fragment) or "save:NAME"."""
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        saved = SAVE_AS.search(before)
        action = f"save:{saved.group(1)}" if saved else "skip" if FRAGMENT.search(before) else "run"
        found.append((line, match.group(1), action))
    return found


def main(path: str) -> int:
    from crewgraph.testing.network import network_blocked

    doc = Path(path)
    namespace: dict[str, object] = {"__name__": "__doc__"}
    ran = 0
    with network_blocked():
        for line, code, action in blocks(doc.read_text(encoding="utf-8")):
            if action == "skip":
                continue
            if action.startswith("save:"):
                Path(action[5:]).write_text(code, encoding="utf-8")
                continue
            try:
                exec(compile(code, f"{doc.name}:{line}", "exec"), namespace)
            except BaseException:
                print(f"FAILED {doc.name}:{line}", file=sys.stderr)
                traceback.print_exc()
                print(
                    f"\n{doc}:{line}: this ```python block failed. Every python block of README.md and "
                    "docs/*.md runs offline in CI (blocks of a file share one namespace, in order; "
                    "OPENAI_BASE_URL points at a local test server). Fix the block, or if it cannot "
                    "run offline put `<!-- fragment: why -->` on the line before its fence "
                    "(`<!-- save-as: NAME -->` writes a block to the file NAME instead of running it).",
                    file=sys.stderr,
                )
                return 1
            ran += 1
    print(f"ran {ran} blocks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
