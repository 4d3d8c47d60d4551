"""``create_app`` and ``serve``: the app behind ``crewgraph ui`` / ``crewgraph serve``.

Both import starlette and uvicorn only when called, through
:func:`crewgraph._internal.extras.import_extra`, so a missing ``crewgraph[ui]``
extra is a :class:`~crewgraph.errors.MissingExtraError` naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crewgraph._internal.extras import import_extra
from crewgraph.ui.settings import UISettings

__all__ = ["create_app", "page_url", "serve"]

_FEATURE = "the crewgraph web UI"


def create_app(settings: UISettings | None = None, **options: Any) -> Any:
    """The ASGI app (Starlette) for ``settings`` (or ``UISettings(**options)``), behind the token gate.

    A host other than loopback gets a generated token when none was given
    (``settings.token`` holds it afterwards).
    """
    import_extra("starlette", "ui", _FEATURE)
    from crewgraph.ui._auth import TokenGate
    from crewgraph.ui.app import build_app

    settings = settings if settings is not None else UISettings(**options)
    token = settings.resolve_token()
    app = build_app(settings)
    return TokenGate(app, token)


def serve(settings: UISettings, *, on_ready: Callable[[str], None] | None = None) -> None:
    """Run the app on uvicorn until Ctrl-C. ``on_ready(url)`` is called once it listens
    (the URL carries ``?token=`` when a token is needed, to hand to a browser once)."""
    uvicorn = import_extra("uvicorn", "ui", _FEATURE)
    app = create_app(settings)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning",
                            timeout_graceful_shutdown=3, lifespan="on")
    server = uvicorn.Server(config)
    if on_ready is not None:
        import threading

        def announce() -> None:
            import time

            for _ in range(600):  # bounded: 60 s for uvicorn to bind
                if server.started:
                    on_ready(page_url(settings))
                    return
                if server.should_exit:
                    return
                time.sleep(0.1)

        threading.Thread(target=announce, name="crewgraph-ui-ready", daemon=True).start()
    server.run()


def page_url(settings: UISettings, path: str = "/") -> str:
    host = settings.host if ":" not in settings.host else f"[{settings.host}]"
    if host in ("0.0.0.0", "[::]"):
        host = "127.0.0.1"
    query = f"?token={settings.token}" if settings.token else ""
    return f"http://{host}:{settings.port}{path}{query}"
