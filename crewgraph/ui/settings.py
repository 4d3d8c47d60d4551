"""``UISettings``: what one ``crewgraph ui`` / ``crewgraph serve`` process serves.

Kept free of web-server imports, so the CLI can build and check settings (and
``crewgraph --help`` can describe them) without starlette or uvicorn installed.
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["LOOPBACK_HOSTS", "TOKEN_COOKIE", "UISettings", "is_loopback"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_COOKIE = "crewgraph_token"


def is_loopback(host: str) -> bool:
    """Whether binding to ``host`` keeps the server reachable from this machine only."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass
class UISettings:
    """Where the runs are, what may be kicked off, and who may ask.

    - ``db``: the crew checkpoint database, a file or a ``postgresql://`` URL (``crewgraph checkpoints``'
      default when None: ``$CREWGRAPH_STORE_URL``, else the default file).
    - ``flow_db``: the flow state database, likewise (``crewgraph flows``' default when None).
    - ``targets``: the *registered* crews and flows, as ``crewgraph run`` specs
      (``module:attr``, a file, ``flow.yaml``); ``None`` in the list stands for the
      project in ``cwd`` (``[tool.crewgraph]`` of its pyproject.toml or ``src/<pkg>/crew.py``).
    - ``llm``: run every registered crew on this model (``"fake"``: offline demo), as ``--llm``.
    - ``host``/``port``: where uvicorn listens; ``token``: the API token. A host other than
      loopback always needs one: :meth:`resolve_token` generates it when none was given.
    """

    db: Path | str | None = None
    flow_db: Path | str | None = None
    targets: list[str | None] = field(default_factory=list)
    cwd: Path = field(default_factory=Path.cwd)
    llm: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    max_jobs: int = 4

    def checkpoint_db(self) -> Path | str:
        """The crew store: ``db`` (a file or a postgresql:// URL), else $CREWGRAPH_STORE_URL, else the file."""
        from crewgraph.checkpoint import default_checkpoint_path

        return _location(self.db) or default_checkpoint_path()

    def flow_state_db(self) -> Path | str:
        """The flow store: ``flow_db``, else $CREWGRAPH_STORE_URL, else the default file."""
        from crewgraph.flow.persistence import default_db_path

        return _location(self.flow_db) or default_db_path()

    @property
    def needs_token(self) -> bool:
        return self.token is not None or not is_loopback(self.host)

    def resolve_token(self) -> str | None:
        """The token requests must carry (generated when the host needs one and none was given)."""
        if self.token is None and not is_loopback(self.host):
            self.token = secrets.token_urlsafe(24)
        return self.token


def _location(value: Path | str | None) -> Path | str | None:
    from crewgraph.checkpoint.location import env_store_url, is_store_url

    if value is None:
        return env_store_url()
    return str(value) if is_store_url(value) else Path(value).expanduser()
