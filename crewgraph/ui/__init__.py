"""``crewgraph ui`` / ``crewgraph serve``: a local web app over the run stores.

A list of runs (crews from the checkpoint database, flows from the flow state
database) with status, duration, tokens and cost; one run's executed graph
with a node panel (prompt, output, tool arguments, error, retries); live
updates; and buttons plus a REST API to resume, answer, fork and kick off.
Needs the ``ui`` extra (starlette + uvicorn), imported only when the app is
built: ``import crewgraph`` and ``crewgraph --help`` never load them.
"""

from crewgraph.ui.errors import ApiError
from crewgraph.ui.server import create_app, page_url, serve
from crewgraph.ui.settings import UISettings

__all__ = ["ApiError", "UISettings", "create_app", "page_url", "serve"]
