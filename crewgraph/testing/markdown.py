"""Run the Python examples of a Markdown page, so documentation cannot rot.

Every fenced ``python`` block runs, in order, in one namespace, with the
working directory set to ``workdir``. A block whose first line is a file-name
comment (``# demo_server.py``) is written to that file instead of run; a block
fenced as ``python fragment`` is skipped. An expected output written as a
comment — ``print(x)  # 42`` or a comment line right after the ``print`` — is
checked against what the call prints.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path
from typing import Any

__all__ = ["markdown_blocks", "run_markdown_examples"]

_FENCE = re.compile(r"^```(\S*)[ \t]*(\S*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_FILE = re.compile(r"^# ([\w./-]+\.(?:py|txt|md|json|csv))\s*$")
_PRINT = re.compile(r"^print\((.*)\)\s+#\s(.+)$")


def markdown_blocks(text: str) -> list[tuple[str, str]]:
    """``(kind, code)`` per Python block: kind is "file", "fragment" or "run"."""
    blocks: list[tuple[str, str]] = []
    for lang, flag, body in _FENCE.findall(text):
        if lang != "python":
            continue
        first = body.split("\n", 1)[0]
        kind = "fragment" if flag == "fragment" else "file" if _FILE.match(first) else "run"
        blocks.append((kind, body))
    return blocks


def _with_checks(code: str) -> str:
    """Turn ``print(x)  # expected`` (or a ``# expected`` line after a top-level ``print(x)``)
    into a check of ``str(x)``."""
    lines = code.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        match = _PRINT.match(line)
        if match:
            out.append(f"__doc_check__(({match.group(1)}), {match.group(2)!r}, {i + 1})")
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.startswith("print(") and line.endswith(")") and nxt.startswith("# "):
            out.append(f"__doc_check__(({line[6:-1]}), {nxt[2:]!r}, {i + 1})")
            continue
        out.append(line)
    return "\n".join(out)


def _check(value: Any, expected: str, line: int) -> None:
    print(value)
    if str(value) != expected.strip():
        raise AssertionError(f"line {line}: printed {str(value)!r}, the page says {expected.strip()!r}")


def run_markdown_examples(path: str | Path, workdir: str | Path) -> dict[str, Any]:
    """Run ``path``'s examples in ``workdir``; returns the namespace they built."""
    page = Path(path)
    namespace: dict[str, Any] = {"__name__": "__doc_example__", "__doc_check__": _check}
    previous = Path.cwd()
    os.chdir(workdir)
    try:
        for n, (kind, code) in enumerate(markdown_blocks(page.read_text(encoding="utf-8")), start=1):
            if kind == "fragment":
                continue
            if kind == "file":
                name = _FILE.match(code.split("\n", 1)[0]).group(1)  # type: ignore[union-attr]
                target = Path(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(code, encoding="utf-8")
                continue
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(_with_checks(code), f"{page.name}[block {n}]", "exec"), namespace)
            except Exception as exc:
                raise AssertionError(f"{page}: Python block {n} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        os.chdir(previous)
    return namespace
