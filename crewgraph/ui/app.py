"""The Starlette application: pages, the REST API and the server-sent-event streams.

Pages (static files shipped in ``crewgraph/ui/static``): ``/`` lists runs,
``/view/{run_id}`` shows one. The REST API is JSON in and out; a refused request
is ``{"error": {"message": ..., "field": ...}}`` with a 4xx status, and any other
failure a one-line 500 (never a traceback).

| method | path | does |
|---|---|---|
| GET | ``/runs`` | runs of both stores, newest first (``?limit=``, ``?kind=crew|flow``) |
| GET | ``/runs/{id}`` | one run: summary, nodes, pending questions, the job that ran it here |
| GET | ``/runs/{id}/graph.svg`` | its executed graph, drawn by ``dot`` |
| GET | ``/runs/{id}/nodes/{node}`` | one node: record, prompt, output, tool call, errors, retries |
| GET | ``/runs/{id}/events`` | server-sent events: the bus for runs of this server, else store polling |
| POST | ``/runs/{id}/resume`` | resume a failed or interrupted run (``{"inputs": {...}}`` optional) |
| POST | ``/runs/{id}/answer`` | answer a paused flow run (``{"answer": "..."}``) |
| POST | ``/runs/{id}/fork`` | fork a crew run from a node and run the fork (``{"node_id": ...}``) |
| POST | ``/kickoff`` | start a registered crew or flow (``{"target": ..., "inputs": {...}}``) |
| GET | ``/targets`` | the registered crews and flows |
| GET | ``/jobs/{job}`` | one action this server ran |
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from crewgraph.checkpoint.location import display
from crewgraph.ui._actions import Actions
from crewgraph.ui._graph import SvgCache, build_run_graph, node_details, recorded_calls, render_svg
from crewgraph.ui._jobs import LiveRuns
from crewgraph.ui._runs import crew_runs, find_run, flow_runs, job_summary, node_output
from crewgraph.ui._runs_cache import MAX_LIMIT, StoredRunsCache
from crewgraph.ui._targets import Registry
from crewgraph.ui.errors import ApiError, public_message
from crewgraph.ui.settings import UISettings

__all__ = ["STATIC_DIR", "build_app"]

STATIC_DIR = Path(__file__).parent / "static"
_log = logging.getLogger("crewgraph.ui")
_POLL_S = 1.0
_KEEPALIVE_S = 15.0
_FINAL = frozenset({"completed", "failed", "cancelled", "paused"})
_MAX_BODY = 1_000_000


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name} must be an integer, got {raw!r}", name) from None
    if not low <= value <= high:
        raise ApiError(400, f"{name} must be between {low} and {high}, got {value}", name)
    return value


async def _body(request: Request) -> dict[str, Any]:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    raw = await request.body()
    if not raw:
        return {}
    if kind != "application/json":
        raise ApiError(415, f"send JSON (Content-Type: application/json), not {kind or 'no content type'!r}",
                       "content-type")
    if len(raw) > _MAX_BODY:
        raise ApiError(413, f"the request body is larger than {_MAX_BODY} bytes", "body")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}", "body") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"the body must be a JSON object, not {type(data).__name__}", "body")
    return data


def _allowed(data: dict[str, Any], names: set[str]) -> None:
    unknown = sorted(set(data) - names)
    if unknown:
        raise ApiError(422, f"unknown field {unknown[0]!r} (accepted: {', '.join(sorted(names))})", unknown[0])


def _inputs(data: dict[str, Any]) -> dict[str, Any]:
    inputs = data.get("inputs", {})
    if inputs is None:
        return {}
    if not isinstance(inputs, dict):
        raise ApiError(422, f"inputs must be an object of name: value, not {type(inputs).__name__}", "inputs")
    for key, value in inputs.items():
        if not isinstance(value, str | int | float | bool | list | dict) or value is None:
            raise ApiError(422, f"input {key!r} must be a string, number, boolean, list or object", f"inputs.{key}")
    return inputs


def _text(data: dict[str, Any], name: str, required: bool) -> str | None:
    value = data.get(name)
    if value is None:
        if required:
            raise ApiError(422, f"{name} is required", name)
        return None
    if not isinstance(value, str) or not value.strip():
        raise ApiError(422, f"{name} must be a non-empty string", name)
    return value.strip()


WARM_WAIT_S = 5.0
"""How long the server's start waits for the run list to be built before opening its port."""


class UIApp:
    """The routes' shared state: settings, registered targets, live runs, actions, drawings."""

    def __init__(self, settings: UISettings, registry: Registry | None = None) -> None:
        self.settings = settings
        self.db = settings.checkpoint_db()
        self.flow_db = settings.flow_state_db()
        self.stored_runs = StoredRunsCache(self.db, self.flow_db)
        # Crews the server starts checkpoint to the database it reads, whatever their own path says.
        self.registry = registry or Registry(settings.targets, settings.cwd, settings.llm, self.db)
        self.live = LiveRuns(settings.max_jobs)
        self.actions = Actions(settings, self.registry, self.live)
        self.svgs = SvgCache()
        self.warming: threading.Thread | None = None
        """The thread building the run list as the server starts (see :meth:`warm`)."""

    # reading ---------------------------------------------------------------------
    def run(self, run_id: str) -> dict[str, Any]:
        from crewgraph.errors import CheckpointError

        try:
            run = find_run(self.db, self.flow_db, run_id)
        except CheckpointError as exc:
            raise ApiError(400, str(exc), "run_id") from None
        if run is None:
            memory = self.live.job_for(run_id)
            if memory is None:
                raise ApiError(404, f"no run {run_id!r} in {display(self.db)} or {display(self.flow_db)}", "run_id")
            run = job_summary(memory)  # kept by nothing but this server (a flow without @persist)
        job = self.live.job_for(run["run_id"])
        run["job"] = job.to_json() if job is not None else None
        run["live"] = "events" if self.live.trace(run["run_id"]) is not None else "polling"
        if job is not None and run["duration_s"] is None and job.finished is not None:
            run["duration_s"] = round(job.finished - job.created, 3)
        return run

    def list_runs(self, request: Request) -> Response:
        limit = _int_param(request, "limit", 100, 1, MAX_LIMIT)
        kind = request.query_params.get("kind")
        if kind not in (None, "crew", "flow"):
            raise ApiError(400, f"kind must be 'crew' or 'flow', got {kind!r}", "kind")
        body = self.runs_body(limit, kind)
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(body.gzipped, media_type="application/json",
                            headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        return Response(body.raw, media_type="application/json", headers={"Vary": "Accept-Encoding"})

    def runs_body(self, limit: int, kind: str | None) -> Any:
        """The ``GET /runs`` body for ``(limit, kind)``, cut from the rows read once per change of
        the stores for the largest limit (see :mod:`crewgraph.ui._runs_cache`)."""
        live = self.live.signature()

        bucket = 200 if limit <= 200 else MAX_LIMIT  # the top N of the top 1,000 is the top N

        def rows() -> list[dict[str, Any]]:
            runs: list[dict[str, Any]] = []
            if kind in (None, "crew"):
                runs += crew_runs(self.db, bucket)
            if kind in (None, "flow"):
                runs += flow_runs(self.flow_db, bucket)
            if kind is None:
                runs += [job_summary(j) for j in self.live.unstored({r["run_id"] for r in runs})]
            runs.sort(key=lambda r: r.get("updated_at") or "", reverse=True)
            return runs[:bucket]

        def build() -> bytes:
            found = self.stored_runs.peek(("rows", kind, MAX_LIMIT), live)
            if found is None:
                found = self.stored_runs.value(("rows", kind, bucket), live, rows)
            shown = []
            for r in found[:limit]:
                job = self.live.job_for(r["run_id"])
                shown.append({**r, "live": "events" if job is not None else "polling"})
            body = {"runs": shown, "checkpoint_db": display(self.db), "flow_db": display(self.flow_db)}
            return bytes(JSONResponse(body).body)

        return self.stored_runs.get((limit, kind), live, build)  # once per change

    def warm(self) -> None:
        """Build the run list for the largest limit, then the run page's from it (one read of the stores)."""
        for limit in (MAX_LIMIT, 200):
            self.runs_body(limit, None).gzipped  # noqa: B018 - compressed ahead, as browsers ask

    def get_run(self, request: Request) -> Response:
        run = self.run(request.path_params["run_id"])
        graph = build_run_graph(run, self.db, self.flow_db, self.registry, self.live)
        run["nodes"] = [rec.to_json() for rec in graph.records()]
        run["actions"] = {
            "resume": run["status"] not in ("completed", "paused") and not self.live.running(run["run_id"])
            and run["store"] != "memory",
            "answer": run["status"] == "paused" and bool(run["pending"]),
            "fork": run["store"] == "checkpoints",
        }
        return JSONResponse(run)

    def graph_svg(self, request: Request) -> Response:
        run = self.run(request.path_params["run_id"])
        trace = self.live.trace(run["run_id"])
        key = (run["run_id"], run["status"], run["updated_at"], run["nodes_completed"],
               trace.version if trace is not None else -1, run["job"] and run["job"]["status"])
        svg = self.svgs.get(key)
        if svg is None:
            svg = render_svg(build_run_graph(run, self.db, self.flow_db, self.registry, self.live))
            self.svgs.put(key, svg)
        return Response(svg, media_type="image/svg+xml")

    def node(self, request: Request) -> Response:
        run = self.run(request.path_params["run_id"])
        node_id = request.path_params["node_id"]
        graph = build_run_graph(run, self.db, self.flow_db, self.registry, self.live)
        trace = self.live.trace(run["run_id"])
        traced = trace.node(node_id) if trace is not None else {}
        if trace is not None and not traced and node_id in graph.digraph:
            traced = _llm_call(graph, trace, node_id)
        if not traced.get("llm_calls") and "tool_output" not in traced:
            # a run of another process (crewgraph run), or one this server no longer traces:
            # the calls the checkpoint store kept with each node
            live = bool(traced)
            traced = dict(traced)
            for key, value in recorded_calls(graph, node_id).items():
                if not traced.get(key):
                    traced[key] = value
        else:
            live = True
        if node_id not in graph.digraph and not traced:
            raise ApiError(404, f"run {run['run_id']} has no node {node_id!r}", "node_id")
        output = node_output(self.db, self.flow_db, run, node_id)
        return JSONResponse(node_details(graph, node_id, traced, output, live=live))

    def targets(self, request: Request) -> Response:
        return JSONResponse({"targets": [self.registry.targets[n].to_json() for n in self.registry.names()]})

    def job(self, request: Request) -> Response:
        job = self.live.jobs.get(request.path_params["job_id"])
        if job is None:
            raise ApiError(404, f"no job {request.path_params['job_id']!r}", "job_id")
        return JSONResponse(job.to_json())

    # writing -----------------------------------------------------------------------
    async def kickoff(self, request: Request) -> Response:
        data = await _body(request)
        _allowed(data, {"target", "inputs"})
        target, inputs = _text(data, "target", False), _inputs(data)
        job = await run_in_threadpool(self.actions.kickoff, target, inputs)
        return JSONResponse(job.to_json(), status_code=202)

    async def resume(self, request: Request) -> Response:
        data = await _body(request)
        _allowed(data, {"inputs"})
        job = await run_in_threadpool(self.actions.resume, request.path_params["run_id"], _inputs(data))
        return JSONResponse(job.to_json(), status_code=202)

    async def answer(self, request: Request) -> Response:
        data = await _body(request)
        _allowed(data, {"answer"})
        answer = data.get("answer")
        if isinstance(answer, dict):
            bad = [k for k, v in answer.items() if not isinstance(v, str)]
            if bad:
                raise ApiError(422, f"the answer for {bad[0]!r} must be a string", f"answer.{bad[0]}")
        elif not isinstance(answer, str):
            raise ApiError(422, "answer is required: a string, or {method: answer} for several questions", "answer")
        job = await run_in_threadpool(self.actions.answer, request.path_params["run_id"], answer)
        return JSONResponse(job.to_json(), status_code=202)

    async def fork(self, request: Request) -> Response:
        data = await _body(request)
        _allowed(data, {"node_id", "branch", "inputs"})
        node_id, branch, inputs = _text(data, "node_id", True), _text(data, "branch", False), _inputs(data)
        assert node_id is not None
        new_id, job = await run_in_threadpool(self.actions.fork, request.path_params["run_id"], node_id, branch, inputs)
        return JSONResponse({**job.to_json(), "run_id": new_id, "parent_run_id": request.path_params["run_id"]},
                            status_code=202)

    # live --------------------------------------------------------------------------
    async def events(self, request: Request) -> Response:
        run = await run_in_threadpool(self.run, request.path_params["run_id"])
        run_id = run["run_id"]
        if self.live.trace(run_id) is not None:
            return StreamingResponse(self._bus_stream(run_id), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache"})
        return StreamingResponse(self._poll_stream(run), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    async def _bus_stream(self, run_id: str) -> AsyncIterator[str]:
        queue = self.live.subscribe(run_id)
        try:
            yield _sse({"type": "hello", "run_id": run_id, "source": "events"}, "hello")
            if not self.live.running(run_id):
                yield _sse({"type": "end", "run_id": run_id}, "end")
                return
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), _KEEPALIVE_S)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                yield _sse(item)
                if item.get("type") == "job_finished":
                    yield _sse({"type": "end", "run_id": run_id, "status": item.get("status")}, "end")
                    return
        finally:
            self.live.unsubscribe(run_id, queue)

    async def _poll_stream(self, run: dict[str, Any]) -> AsyncIterator[str]:
        """A run of another process: read the store every second, report what changed."""
        run_id = run["run_id"]
        yield _sse({"type": "hello", "run_id": run_id, "source": "polling"}, "hello")
        seen = (run["status"], run["updated_at"], run["nodes_completed"])
        idle = 0.0
        while True:
            if self.live.trace(run_id) is not None:  # this server took the run over (resume)
                yield _sse({"type": "switch", "run_id": run_id}, "end")
                return
            await asyncio.sleep(_POLL_S)
            now = await run_in_threadpool(find_run, self.db, self.flow_db, run_id)
            if now is None:
                yield _sse({"type": "end", "run_id": run_id, "status": "deleted"}, "end")
                return
            state = (now["status"], now["updated_at"], now["nodes_completed"])
            if state != seen:
                seen, idle = state, 0.0
                yield _sse({"type": "store_changed", "run_id": run_id, "status": now["status"],
                            "nodes_completed": now["nodes_completed"]})
            else:
                idle += _POLL_S
                if idle >= _KEEPALIVE_S:
                    idle = 0.0
                    yield ": keep-alive\n\n"


def _llm_call(graph: Any, trace: Any, node_id: str) -> dict[str, Any]:
    """A model call's child record (``<step>.llm<n>``) gets the n-th call its step's trace saw."""
    import re

    rec = graph.record(node_id)
    found = re.search(r"\.llm(\d+)$", node_id)
    if rec.kind != "llm" or rec.parent is None or found is None:
        return {}
    calls = trace.node(rec.parent).get("llm_calls") or []
    index = int(found.group(1)) - 1
    if not 0 <= index < len(calls):
        return {}
    call = calls[index]
    return {"llm_calls": [call], "output_preview": call.get("response"), "error": call.get("error")}


def _sse(data: dict[str, Any], event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, default=str)}\n\n"


def _page(name: str) -> Any:
    def endpoint(request: Request) -> Response:
        return FileResponse(STATIC_DIR / name, media_type="text/html")

    return endpoint


def _logged(request: Request, status: int, message: str) -> str:
    """Log the full message (paths included) for the operator; return what the browser may see."""
    (_log.error if status >= 500 else _log.info)("%s %s -> %d: %s", request.method, request.url.path, status, message)
    return public_message(message)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    _logged(request, exc.status, exc.message)
    return JSONResponse(exc.to_json(), status_code=exc.status, headers=exc.headers or None)


async def _user_error(request: Request, exc: Exception) -> Response:
    from crewgraph.cli._errors import describe

    message = _logged(request, 400, describe(exc))
    return JSONResponse({"error": {"message": message, "field": None}}, status_code=400)


async def _unexpected(request: Request, exc: Exception) -> Response:
    from crewgraph.cli._errors import describe

    message = _logged(request, 500, f"internal error: {describe(exc)}")
    return JSONResponse({"error": {"message": message, "field": None}}, status_code=500)


async def _http_error(request: Request, exc: Exception) -> Response:
    status = int(getattr(exc, "status_code", 500))
    detail = public_message(str(getattr(exc, "detail", "") or "error"))
    return JSONResponse({"error": {"message": detail, "field": None}}, status_code=status)


def build_app(settings: UISettings, registry: Registry | None = None) -> Starlette:
    """The Starlette app for ``settings`` (without the token gate: see :func:`crewgraph.ui.create_app`)."""
    from contextlib import asynccontextmanager

    from starlette.exceptions import HTTPException

    from crewgraph.cli._errors import UserError
    from crewgraph.errors import CrewGraphError

    ui = UIApp(settings, registry)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        ui.live.start()
        ui.warming = ui.stored_runs.warm(ui.warm)  # the first readers after a start find the list ready
        # The port opens once the list is ready (uvicorn serves after startup), bounded: a huge store
        # finishes in the background and its first readers wait for that build, never for a second one.
        await asyncio.get_running_loop().run_in_executor(None, ui.warming.join, WARM_WAIT_S)
        try:
            yield
        finally:
            ui.live.stop()
            ui.stored_runs.close()

    routes = [
        Route("/", _page("index.html")),
        Route("/view/{run_id}", _page("run.html")),
        Route("/runs", ui.list_runs),
        Route("/runs/{run_id}", ui.get_run),
        Route("/runs/{run_id}/graph.svg", ui.graph_svg),
        Route("/runs/{run_id}/nodes/{node_id:path}", ui.node),
        Route("/runs/{run_id}/events", ui.events),
        Route("/runs/{run_id}/resume", ui.resume, methods=["POST"]),
        Route("/runs/{run_id}/answer", ui.answer, methods=["POST"]),
        Route("/runs/{run_id}/fork", ui.fork, methods=["POST"]),
        Route("/kickoff", ui.kickoff, methods=["POST"]),
        Route("/targets", ui.targets),
        Route("/jobs/{job_id}", ui.job),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ApiError: _api_error,
            UserError: _user_error,
            CrewGraphError: _user_error,
            HTTPException: _http_error,
            Exception: _unexpected,
        },
    )
    app.state.ui = ui
    return app
