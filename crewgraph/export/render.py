"""Rendering DOT text to a file with Graphviz's ``dot`` program.

The DOT is built with the ``graphviz`` package (:mod:`crewgraph.export._dot`);
to draw it we call the ``dot`` binary directly (the same program that package
shells out to) instead of ``graphviz.Source.render``/``pipe``: ``render``
appends its own suffixes and leaves a source file next to the output, while
users of ``crew.render("plan.svg")`` expect exactly ``plan.svg``, and neither
takes a timeout, while every wait here is bounded. Output is
written to a temporary file and moved into place, so a failed render never
leaves a truncated picture behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from crewgraph.errors import CrewGraphError

__all__ = ["FORMATS", "ExportError", "GraphvizNotFoundError", "render_dot", "write_text"]

FORMATS = frozenset(
    {"svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "json", "plain", "dot", "gv"}
)
"""Formats ``render_dot`` accepts. ``dot``/``gv`` write the DOT text itself (no Graphviz needed)."""
_TEXT_FORMATS = frozenset({"dot", "gv"})
_TIMEOUT_S = 120
_FILE_MODE = 0o644  # mkstemp makes 0600 files; a picture is meant to be shared

_INSTALL_HINT = (
    "Install Graphviz: `apt-get install graphviz` (Debian/Ubuntu), `dnf install graphviz` "
    "(Fedora), `brew install graphviz` (macOS), `choco install graphviz` (Windows) or "
    "`conda install graphviz`; then check that `dot -V` works. Without it you can still "
    "write the DOT text: render to a .dot file or use to_dot()."
)


class ExportError(CrewGraphError):
    """A graph could not be exported (unknown format, Graphviz failed)."""


class GraphvizNotFoundError(ExportError):
    """Graphviz's ``dot`` program is not installed (or not on PATH)."""


def _format_for(path: Path, format: str | None) -> str:
    fmt = (format or path.suffix.lstrip(".") or "svg").lower()
    if fmt not in FORMATS:
        raise ExportError(
            f"cannot render {str(path)!r} as {fmt!r}; supported formats: {', '.join(sorted(FORMATS))}"
        )
    return fmt


def _dot_binary() -> str:
    found = shutil.which("dot")
    if found is None:
        raise GraphvizNotFoundError(
            f"Graphviz's `dot` program was not found on PATH. {_INSTALL_HINT}"
        )
    return found


def render_dot(dot: str, path: str | Path, format: str | None = None) -> Path:
    """Render DOT text to ``path`` and return the written path.

    The format comes from ``format`` or else the file suffix (``.svg``, ``.png``,
    ``.pdf``, ``.dot``...); a path without a suffix gets ``.svg`` (or
    ``.<format>``). Parent folders are created. Raises
    :class:`GraphvizNotFoundError` (with install instructions) when ``dot`` is
    missing, :class:`ExportError` when it rejects the input.
    """
    target = Path(path).expanduser()
    fmt = _format_for(target, format)
    if not target.suffix:
        target = target.with_name(f"{target.name}.{fmt}")
    target.parent.mkdir(parents=True, exist_ok=True)
    if fmt in _TEXT_FORMATS:
        _atomic_write(target, dot.encode("utf-8"))
        return target
    binary = _dot_binary()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        try:
            proc = subprocess.run(
                [binary, f"-T{fmt}", "-o", str(tmp)],
                input=dot.encode("utf-8"),
                capture_output=True,
                timeout=_TIMEOUT_S,
                check=False,
            )
        except FileNotFoundError as exc:  # removed between which() and run()
            raise GraphvizNotFoundError(
                f"Graphviz's `dot` program could not be run. {_INSTALL_HINT}"
            ) from exc
        except subprocess.TimeoutExpired as exc:
            raise ExportError(
                f"Graphviz took longer than {_TIMEOUT_S}s to render {str(target)!r}"
            ) from exc
        if proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip()
            raise ExportError(
                f"Graphviz failed to render {str(target)!r} (exit {proc.returncode}): {detail}"
            )
        tmp.chmod(_FILE_MODE)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _atomic_write(target: Path, data: bytes) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp_name, _FILE_MODE)
        os.replace(tmp_name, target)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


def write_text(text: str, path: str | Path, default_suffix: str = "") -> Path:
    """Write ``text`` (DOT, Mermaid) to ``path`` atomically, adding ``default_suffix`` when the
    name has none; parent folders are created."""
    target = Path(path).expanduser()
    if not target.suffix and default_suffix:
        target = target.with_name(target.name + default_suffix)
    target.parent.mkdir(parents=True, exist_ok=True)
    _atomic_write(target, text.encode("utf-8"))
    return target
