"""What went wrong with a store file, told apart: a full disk is not a corrupt database.

SQLite reports a full disk (``SQLITE_FULL``), an I/O error (``SQLITE_IOERR``), a file it may
not write (``SQLITE_READONLY``, ``SQLITE_PERM``, ``SQLITE_CANTOPEN``) and a damaged file
(``SQLITE_CORRUPT``, ``SQLITE_NOTADB``) with distinct codes. Only the last means the file is
bad; telling a user with a full disk to "move it aside or delete it" would have them destroy a
healthy store (it resumed fine once space was freed). So each kind gets its own message, saying
whether the data is safe and what to do.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

__all__ = ["MIN_FREE_BYTES", "free_space_problem", "store_problem"]

_FULL = {"SQLITE_FULL"}
_IO = {"SQLITE_IOERR"}
_ACCESS = {"SQLITE_READONLY", "SQLITE_PERM", "SQLITE_CANTOPEN", "SQLITE_AUTH"}
_CORRUPT = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}


def _code(exc: BaseException) -> str:
    """The primary SQLite result code's name (``SQLITE_IOERR_WRITE`` -> ``SQLITE_IOERR``)."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    for family in (*_FULL, *_IO, *_ACCESS, *_CORRUPT):
        if name == family or name.startswith(family + "_"):
            return family
    text = str(exc).lower()
    if "database or disk is full" in text:
        return "SQLITE_FULL"
    if "disk i/o error" in text:
        return "SQLITE_IOERR"
    if "readonly" in text or "unable to open" in text:
        return "SQLITE_CANTOPEN"
    if "malformed" in text or "not a database" in text:
        return "SQLITE_CORRUPT"
    return name


def store_problem(noun: str, path: Path | str, exc: BaseException) -> str:
    """The message for ``exc`` on the store ``noun`` (e.g. "checkpoint database") at ``path``."""
    where = f"{noun} {str(path)!r}"
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        code = "SQLITE_FULL"
    elif isinstance(exc, OSError):
        code = "SQLITE_IOERR"
    else:
        code = _code(exc)
    if code == "SQLITE_FULL":
        return (f"{where}: the disk is full ({exc}). The store is not damaged and nothing saved is "
                "lost (the failed write was rolled back): free some space, then run or resume again.")
    if code == "SQLITE_IOERR":
        return (f"{where}: an input/output error ({exc}). The file may well be intact: check the disk "
                "(free space, the filesystem, a network mount that went away), then retry. Do not "
                "delete it; copy it elsewhere first if you suspect the disk.")
    if code in _ACCESS:
        return (f"{where} cannot be opened or written ({exc}): check that the folder exists and that "
                "this user may write it (or choose another path).")
    if code in _CORRUPT:
        return (f"{where} is unreadable or corrupt ({exc}). Move it aside or delete it to start "
                "with an empty store.")
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return f"{where} stayed locked by another process: {exc}"
    return f"{where}: {exc}"


MIN_FREE_BYTES = 64 * 2**20
"""Free space a memory-mapped store needs before it opens or writes: Qdrant's embedded engine
preallocates 32 MiB write-ahead-log segments, and a write into a mapped file on a full disk kills
the process with SIGBUS (no error to catch), so the check has to come first."""


def free_space_problem(noun: str, path: Path | str, needed: int = 0, minimum: int = MIN_FREE_BYTES) -> str | None:
    """The full-disk message when the disk holding ``path`` has less than ``minimum`` bytes free
    (plus ``needed`` for the write at hand); None when there is room or it cannot be measured."""
    try:
        free = shutil.disk_usage(path).free
    except OSError:
        return None
    if free >= minimum + needed:
        return None
    mib = 2**20
    return (f"{noun} {str(path)!r}: the disk is full ({free / mib:.1f} MiB free; opening or writing it needs "
            f"at least {(minimum + needed) / mib:.0f} MiB). The store is not damaged and nothing saved is "
            "lost: free some space, then run again.")
