"""``crewgraph ui`` and ``crewgraph serve``: the web app over the run stores.

The two run the same app on the same uvicorn server. ``ui`` is for a person
at this machine: it opens the run list in the default browser. ``serve`` is
for everything else (a remote box, a container, scripts using the REST API):
it opens nothing and prints the address and, when there is one, the token.
Nothing here imports starlette or uvicorn until the command runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._options import DbOpt, LlmOpt, QuietOpt

__all__ = ["serve", "ui"]

CrewOpt = Annotated[
    list[str] | None,
    typer.Option("--crew", metavar="MODULE:ATTR", help="Register a crew for kickoff; repeat for more.",
                 show_default=False),
]
FlowOpt = Annotated[
    list[str] | None,
    typer.Option("--flow", metavar="MODULE:ATTR", help="Register a flow (or flow.yaml) for kickoff; repeat for more.",
                 show_default=False),
]
HostOpt = Annotated[str, typer.Option("--host", help="Address to listen on; anything but loopback needs a token.")]
PortOpt = Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="Port to listen on (0: any free port).")]
TokenOpt = Annotated[
    str | None,
    typer.Option("--token", envvar="CREWGRAPH_UI_TOKEN",
                 help="API token requests must carry (generated and printed when the host is not loopback).",
                 show_default=False),
]
FlowDbOpt = Annotated[
    str | None,
    typer.Option("--flow-db", metavar="PATH|URL",
                 help="Flow state database: a file or a postgresql:// URL (default: the one `crewgraph flows` reads).",
                 show_default=False),
]
NoProjectOpt = Annotated[
    bool, typer.Option("--no-project", help="Do not register the project in the current folder.")
]


def _start(crew: list[str] | None, flow: list[str] | None, host: str, port: int, token: str | None,
           db: str | None, flow_db: str | None, llm: str | None, no_project: bool, open_browser: bool,
           quiet: bool = False) -> None:
    from crewgraph.ui.settings import UISettings

    targets: list[str | None] = [] if no_project else [None]
    targets += [*(crew or []), *(flow or [])]
    if token is not None and not token.strip():
        raise UserError("--token must not be empty")
    if port == 0:
        import socket

        with socket.socket() as probe:
            probe.bind((host, 0))
            port = probe.getsockname()[1]
    settings = UISettings(db=db, flow_db=flow_db, targets=targets, llm=llm, host=host, port=port, token=token)
    generated = token is None and settings.needs_token

    def ready(url: str) -> None:
        if not quiet:
            typer.echo(f"crewgraph UI on {url}", err=True)
        if generated:  # printed even with --quiet: the server is useless without it
            typer.echo(f"API token (generated): {settings.token}", err=True)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    from crewgraph.ui import serve as run_server

    try:
        run_server(settings, on_ready=ready)
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


@guarded
def ui(crew: CrewOpt = None, flow: FlowOpt = None, host: HostOpt = "127.0.0.1", port: PortOpt = 8765,
       token: TokenOpt = None, db: DbOpt = None, flow_db: FlowDbOpt = None, llm: LlmOpt = None,
       no_project: NoProjectOpt = False, quiet: QuietOpt = False) -> None:
    """Open the web UI: runs, their executed graphs, live updates, resume/answer/fork/kickoff.

    Registers the project in the current folder (as `crewgraph run` finds it) and every --crew/--flow
    for kickoff. Opens the browser; `crewgraph serve` is the same server without it.
    """
    _start(crew, flow, host, port, token, db, flow_db, llm, no_project, open_browser=True, quiet=quiet)


@guarded
def serve(crew: CrewOpt = None, flow: FlowOpt = None, host: HostOpt = "127.0.0.1", port: PortOpt = 8765,
          token: TokenOpt = None, db: DbOpt = None, flow_db: FlowDbOpt = None, llm: LlmOpt = None,
          no_project: NoProjectOpt = False, quiet: QuietOpt = False) -> None:
    """Serve the web UI and its REST API without opening a browser (servers, containers, scripts).

    Prints the address and, when the host is not loopback, the API token requests must carry.
    """
    _start(crew, flow, host, port, token, db, flow_db, llm, no_project, open_browser=False, quiet=quiet)
