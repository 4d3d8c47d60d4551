"""Connecting to a MySQL-protocol server (MySQL, MariaDB, SingleStore) with PyMySQL.

``mysql://user:password@host:port/db?charset=...`` URIs (also ``mysql+pymysql://``,
``mariadb://``, ``singlestoredb://``) become PyMySQL's keyword arguments;
PyMySQL is pure Python, in the ``mysql`` extra.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from crewgraph.toolkit._hosted import missing_library

__all__ = ["connect_args", "import_pymysql"]

_SCHEMES = {"mysql", "mysql+pymysql", "mariadb", "mariadb+pymysql", "singlestoredb", "singlestoredb+pymysql"}


def import_pymysql(tool: str) -> Any:
    """PyMySQL, or ImportError with the extra to install."""
    try:
        import pymysql
    except ImportError:
        raise ImportError(missing_library(tool, "pymysql", "'crewgraph[mysql]'")) from None
    return pymysql


def connect_args(uri: str) -> dict[str, Any]:
    """PyMySQL ``connect`` arguments for ``uri`` (a ValueError names what is wrong).

    A URI without a scheme (``user:pw@host/db``, as ``SINGLESTOREDB_URL`` allows) is read as mysql.
    """
    if "://" not in uri:
        uri = "mysql://" + uri
    parts = urlsplit(uri)
    if parts.scheme.lower() not in _SCHEMES:
        raise ValueError(f"not a MySQL URI (scheme {parts.scheme!r}; expected mysql://user:password@host:port/db)")
    args: dict[str, Any] = {"host": parts.hostname or "localhost", "port": parts.port or 3306}
    if parts.username:
        args["user"] = unquote(parts.username)
    if parts.password:
        args["password"] = unquote(parts.password)
    database = parts.path.lstrip("/")
    if database:
        args["database"] = unquote(database)
    for key, values in parse_qs(parts.query).items():
        if key in {"charset", "unix_socket"}:
            args[key] = values[-1]
    return args
