"""The CLI's error boundary: a mistake is one line on stderr and an exit code, never a traceback.

Every command body runs under :func:`guarded`. A user error (bad input, a
module that does not import, a YAML error, an unknown run id, a crewgraph
error raised by the run) prints ``Error: <reason>`` and exits 1 (2 for bad
command-line syntax). Anything else is still one line, with a hint to rerun
with ``--debug``, which re-raises so the full traceback shows.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

import typer

__all__ = ["DEBUG_ENV", "UsageProblem", "UserError", "describe", "guarded", "is_debug", "set_debug"]

F = TypeVar("F", bound=Callable[..., Any])

DEBUG_ENV = "CREWGRAPH_DEBUG"
_TRUE = {"1", "true", "yes", "on"}
_debug_flag = False


class UserError(Exception):
    """Something the user asked for cannot be done; ``str()`` is the whole explanation."""

    exit_code = 1


class UsageProblem(UserError):
    """The command line itself is wrong (e.g. ``--inputs topic``): exit code 2, like click."""

    exit_code = 2


def set_debug(value: bool) -> None:
    global _debug_flag
    _debug_flag = value


def is_debug() -> bool:
    return _debug_flag or os.environ.get(DEBUG_ENV, "").strip().lower() in _TRUE


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if len(lines) == 1:
        return lines[0]
    return lines[0].rstrip(":") + ": " + "; ".join(line.lstrip("- ") for line in lines[1:])


def describe(exc: BaseException) -> str:
    """The one-line reason shown for ``exc``."""
    from pydantic import ValidationError

    from crewgraph.errors import CrewGraphError

    if isinstance(exc, UserError | CrewGraphError):
        return _one_line(str(exc)) or type(exc).__name__
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err.get("loc", ()))
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return f"invalid {exc.title}: {loc + ': ' if loc else ''}{err['msg']}{more}"
    if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
        return _one_line(str(exc))
    text = _one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _user_facing(exc: BaseException) -> bool:
    from pydantic import ValidationError

    from crewgraph.errors import CrewGraphError

    return isinstance(
        exc, UserError | CrewGraphError | ValidationError | FileNotFoundError | PermissionError | IsADirectoryError
    )


def _passthrough() -> tuple[type[BaseException], ...]:
    """Exceptions typer itself turns into an exit (``--help``, a declined ``confirm``, a
    ``BadParameter``): re-raised untouched. Recent typer versions vendor click, so both
    click's classes (when anything imported click: none of its exceptions exists before) and
    typer's own are listed (``TyperException`` is the vendored base)."""
    found: list[type[BaseException]] = [typer.Exit, typer.Abort]
    click = sys.modules.get("click")
    if click is not None:
        found += [click.exceptions.Exit, click.ClickException, click.Abort]
    vendored = getattr(getattr(typer, "exceptions", None), "TyperException", None)
    if isinstance(vendored, type) and issubclass(vendored, BaseException):
        found.append(vendored)
    return tuple(found)


def guarded(func: F) -> F:
    """Run a command body behind the boundary (keeps the signature typer reads)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except _passthrough():
            raise
        except KeyboardInterrupt:
            typer.echo("Interrupted.", err=True)
            raise typer.Exit(130) from None
        except Exception as exc:
            if is_debug():
                raise
            reason = describe(exc)
            if not _user_facing(exc):
                reason += " (an unexpected error; rerun with --debug for the traceback)"
            typer.echo(f"Error: {reason}", err=True)
            raise typer.Exit(exc.exit_code if isinstance(exc, UserError) else 1) from None

    return cast(F, wrapper)
