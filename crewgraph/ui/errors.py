"""``ApiError``: a request the server refuses, answered as ``{"error": {"message", "field"}}``.

:func:`public_message` is what a browser may see of an error: absolute file paths
(where the stores live, the user's home directory) are cut to their file name, since
a page should not learn the machine's layout; the server log keeps the full text.
"""

from __future__ import annotations

import os
import re

__all__ = ["ApiError", "public_message"]

# An absolute POSIX path of two or more parts, not inside a URL (``http://h/x``) or a relative name (``a/b``).
_ABS_PATH = re.compile(r"(?<![\w:/.~-])/(?:[^\s'\"()<>,;/]+/)+([^\s'\"()<>,;/]+)")
# Windows: ``C:\dir\file``.
_WIN_PATH = re.compile(r"\b[A-Za-z]:\\(?:[^\s'\"()<>,;\\]+\\)*([^\s'\"()<>,;\\]+)")


def _is_real(path: str) -> bool:
    """Whether the path's first directory exists here: ``/home/u/x.db`` is a path, ``/runs/abc`` a route."""
    top = "/" + path.lstrip("/").split("/", 1)[0]
    return os.path.isdir(top) and top != "/"


def public_message(text: str) -> str:
    """``text`` with every absolute path of this machine replaced by its file name."""
    text = _ABS_PATH.sub(lambda m: m.group(1) if _is_real(m.group(0)) else m.group(0), text)
    return _WIN_PATH.sub(lambda m: m.group(1), text)


class ApiError(Exception):
    """``status`` is the HTTP status; ``field`` names the part of the request that is wrong."""

    def __init__(self, status: int, message: str, field: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.headers = dict(headers or {})
        self.status = status
        self.message = message
        self.field = field

    def to_json(self) -> dict[str, object]:
        return {"error": {"message": public_message(self.message), "field": self.field}}
