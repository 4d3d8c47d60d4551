"""Keeping file tools inside a base directory.

A model chooses the paths file tools touch, so a tool given ``base_dir``
resolves every path against it (following symlinks and ``..``) and refuses
anything that lands outside, naming the path it refused.
"""

from __future__ import annotations

from pathlib import Path

from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["confine", "display"]


def confine(path: str, base_dir: str | None) -> Path | ToolFailure:
    """The real path to use for ``path``, or a failure when it escapes ``base_dir``.

    Without ``base_dir`` the path is used as given (relative to the working
    directory), as CrewAI's tools do. With it, relative paths are relative to
    ``base_dir`` and absolute ones must lie inside it.
    """
    if not str(path).strip():
        return ToolFailure(message="The path is empty: give a file or directory path.", code="invalid_path")
    candidate = Path(path).expanduser()
    if base_dir is None:
        return candidate
    base = Path(base_dir).expanduser().resolve()
    joined = candidate if candidate.is_absolute() else base / candidate
    resolved = joined.resolve()
    if not resolved.is_relative_to(base):
        return ToolFailure(
            message=(
                f"Access denied: path {path!r} resolves to {str(resolved)!r}, outside the allowed "
                f"base directory {str(base)!r}. Use a path inside it."
            ),
            code="path_outside_base_dir",
            details={"path": str(path), "base_dir": str(base)},
        )
    return resolved


def display(path: Path, base_dir: str | None) -> str:
    """How a path is shown back to the model (relative to ``base_dir`` when there is one)."""
    if base_dir is not None:
        base = Path(base_dir).expanduser().resolve()
        try:
            return path.resolve().relative_to(base).as_posix() or "."
        except ValueError:
            pass
    return path.as_posix()
