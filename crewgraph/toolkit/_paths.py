"""Keeping file tools inside a base directory, and opening only what they should.

A model chooses the paths file tools touch, so a tool given ``base_dir``
resolves every path against it (following symlinks and ``..``) and refuses
anything that lands outside, naming the path it refused.

Checking a path and then opening it is a race: a symlink swapped in between
(8 leaks in 3,000 tries) makes the open land outside. So the check is only a
first answer; :func:`open_file` and :func:`open_directory` check again *the
descriptor actually opened* (its real path, from ``/proc/self/fd`` or
``F_GETPATH``), and :func:`create_file` opens the last component with
``O_NOFOLLOW`` relative to a verified directory descriptor. They also refuse
what is not a regular file (a FIFO hangs a reader, ``/dev/zero`` never ends)
before a single byte is read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["confine", "create_file", "display", "open_directory", "open_file"]

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)


def _bad_name(path: str) -> ToolFailure | None:
    """A short failure for a path no file system accepts (never echoing an absolute path)."""
    if "\x00" in path:
        return ToolFailure(message="The path contains a NUL byte; give a plain file path.", code="invalid_path")
    encoded = path.encode("utf-8", errors="surrogateescape")
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if len(encoded) > MAX_PATH_BYTES or longest > MAX_NAME_BYTES:
        return ToolFailure(
            message=(
                f"The path is too long ({len(encoded)} bytes; at most {MAX_PATH_BYTES}, and "
                f"{MAX_NAME_BYTES} per name); give a shorter path."
            ),
            code="invalid_path",
        )
    return None


def confine(path: str, base_dir: str | None) -> Path | ToolFailure:
    """The real path to use for ``path``, or a failure when it escapes ``base_dir``.

    Without ``base_dir`` the path is used as given (relative to the working
    directory), as CrewAI's tools do. With it, relative paths are relative to
    ``base_dir`` and absolute ones must lie inside it.
    """
    if not str(path).strip():
        return ToolFailure(message="The path is empty: give a file or directory path.", code="invalid_path")
    bad = _bad_name(str(path))
    if bad is not None:
        return bad
    candidate = Path(path).expanduser()
    if base_dir is None:
        return candidate
    base = Path(base_dir).expanduser().resolve()
    joined = candidate if candidate.is_absolute() else base / candidate
    try:
        resolved = joined.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name the OS refuses
        return ToolFailure(message=f"Cannot resolve path {path!r}: {exc}", code="invalid_path")
    if not resolved.is_relative_to(base):
        return _outside(path, resolved, base)
    return resolved


def _outside(path: str, resolved: Path, base: Path) -> ToolFailure:
    return ToolFailure(
        message=(
            f"Access denied: path {path!r} resolves to {str(resolved)!r}, outside the allowed "
            f"base directory {str(base)!r}. Use a path inside it."
        ),
        code="path_outside_base_dir",
        details={"path": str(path), "base_dir": str(base)},
    )


def display(path: Path, base_dir: str | None) -> str:
    """How a path is shown back to the model (relative to ``base_dir`` when there is one)."""
    if base_dir is not None:
        base = Path(base_dir).expanduser().resolve()
        try:
            return path.resolve().relative_to(base).as_posix() or "."
        except (ValueError, OSError, RuntimeError):
            pass
    return path.as_posix()


def _fd_path(fd: int) -> Path | None:
    """The real path of an open descriptor, or None where the platform cannot say."""
    proc = f"/proc/self/fd/{fd}"
    if os.path.islink(proc):
        with contextlib.suppress(OSError):
            return Path(os.readlink(proc))
    if os.name != "posix":
        return None
    import fcntl

    getpath = getattr(fcntl, "F_GETPATH", None)  # macOS, BSDs
    if getpath is not None:
        with contextlib.suppress(OSError):
            raw = fcntl.fcntl(fd, getpath, b"\0" * 1024)
            return Path(os.fsdecode(raw.split(b"\0", 1)[0]))
    return None


def _verify_inside(fd: int, base_dir: str | None, shown: str, expected: Path) -> ToolFailure | None:
    """The opened descriptor must still be inside ``base_dir`` (it may not be what was checked)."""
    if base_dir is None:
        return None
    base = Path(base_dir).expanduser().resolve()
    real = _fd_path(fd)
    if real is not None:
        inside = real.is_relative_to(base)
    else:  # no way to name the descriptor: it must at least be the file that was checked
        try:
            now, then = os.fstat(fd), os.stat(expected, follow_symlinks=False)
            inside = (now.st_dev, now.st_ino) == (then.st_dev, then.st_ino)
        except OSError:
            inside = False
    if inside:
        return None
    return ToolFailure(
        message=f"Access denied: {shown!r} changed while it was opened and now lies outside the base directory.",
        code="path_outside_base_dir",
    )


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_file(path: Path, base_dir: str | None, shown: str) -> int | ToolFailure:
    """A read-only descriptor on the regular file at ``path`` (already confined), or why not."""
    try:
        fd = os.open(path, os.O_RDONLY | _CLOEXEC | _NONBLOCK | _NOCTTY)
    except FileNotFoundError:
        return ToolFailure(message=f"File not found: {shown!r}", code="file_not_found")
    except IsADirectoryError:
        return _is_directory(shown)
    except OSError as exc:
        return ToolFailure(message=f"Could not open {shown!r}: {exc.strerror or exc}", code="os_error")
    failure = _check_regular(fd, shown) or _verify_inside(fd, base_dir, shown, path)
    if failure is not None:
        os.close(fd)
        return failure
    os.set_blocking(fd, True)
    return fd


def _is_directory(shown: str) -> ToolFailure:
    return ToolFailure(
        message=f"{shown!r} is a directory, not a file; list it with a directory tool.",
        code="is_a_directory",
    )


def _check_regular(fd: int, shown: str) -> ToolFailure | None:
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return _is_directory(shown)
    return ToolFailure(
        message=f"{shown!r} is {_kind(mode)}, not a regular file; file tools only use regular files.",
        code="not_a_regular_file",
    )


def open_directory(path: Path, base_dir: str | None, shown: str) -> int | ToolFailure:
    """A descriptor on the directory at ``path`` (already confined), re-checked once open."""
    try:
        fd = os.open(path, os.O_RDONLY | _CLOEXEC | _DIRECTORY)
    except FileNotFoundError:
        return ToolFailure(message=f"Directory not found: {shown!r}", code="directory_not_found")
    except NotADirectoryError:
        return ToolFailure(message=f"{shown!r} is a file, not a directory.", code="not_a_directory")
    except OSError as exc:
        return ToolFailure(message=f"Could not open {shown!r}: {exc.strerror or exc}", code="os_error")
    failure = _verify_inside(fd, base_dir, shown, path)
    if failure is not None:
        os.close(fd)
        return failure
    return fd


def create_file(path: Path, base_dir: str | None, shown: str, *, overwrite: bool) -> int | ToolFailure:
    """A write descriptor on ``path`` (already confined), created with its directories.

    The directory is opened and re-checked, then the file is opened relative to it
    with ``O_NOFOLLOW`` (a symlink swapped in for the file is refused) and
    ``O_EXCL`` unless ``overwrite`` (no check-then-clobber race). An existing file
    is only truncated once it is known to be a regular file.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return ToolFailure(message=f"Could not create the directory of {shown!r}: {exc.strerror or exc}", code="os_error")
    parent = open_directory(path.parent, base_dir, shown)
    if isinstance(parent, ToolFailure):
        return parent
    flags = os.O_WRONLY | os.O_CREAT | _CLOEXEC | _NONBLOCK | _NOCTTY | _NOFOLLOW
    if not overwrite:
        flags |= os.O_EXCL
    try:
        fd = os.open(path.name, flags, 0o666, dir_fd=parent)
    except FileExistsError:
        return ToolFailure(
            message=f"File {shown!r} already exists and overwrite was not requested.", code="file_exists"
        )
    except IsADirectoryError:
        return ToolFailure(message=f"{shown!r} is a directory; give a file name.", code="is_a_directory")
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # ELOOP: the name is a symlink now
            return ToolFailure(message=f"Access denied: {shown!r} is a symbolic link.", code="path_outside_base_dir")
        return ToolFailure(message=f"Could not write {shown!r}: {exc.strerror or exc}", code="os_error")
    finally:
        os.close(parent)
    failure = _check_regular(fd, shown)
    if failure is not None:
        os.close(fd)
        return failure
    os.set_blocking(fd, True)
    os.ftruncate(fd, 0)
    return fd
