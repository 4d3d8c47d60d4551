"""Record a whole crew run's LLM traffic to one file and replay it offline: ``Crew(cassette=...)``.

``crewgraph.llm.recording`` records and replays *one* model object, matching
calls by their order. A crew run needs more: several models (each agent's,
the manager's, the planner's, guardrail judges), and calls whose order is
not stable, because independent tasks and parallel tool calls run
concurrently and finish in whatever order the network decides. So this
cassette is **keyed by content**: a replayed call takes the first unused
recording with the same model and the same request (messages, tools,
response model, parameters), whatever its position. Identical requests are
served in recording order. A request with no recording fails with
:class:`~crewgraph.errors.ReplayMismatchError` showing a unified diff
against the closest recording, so a changed prompt is obvious.

The file is JSON lines in ``RecordingLLM``'s format (``request``,
``response``, ``error``, ``model``), written, read and replayed with the
helpers of ``crewgraph.llm.recording``, so either tool can read the other's
recordings. Turning it on for a crew wraps every model the compiled graph
uses (node ``llm`` and ``function_calling_llm`` fields, guardrail redo
templates, delegation coworkers and the crew's default model), so no node
knows it is being recorded.

Modes: ``auto`` records when the file does not exist and replays when it
does; ``record`` always re-records; ``replay`` never touches the network.
``CREWGRAPH_CASSETTE=path`` (and ``CREWGRAPH_CASSETTE_MODE``) turn it on for
every crew run without changing code, e.g. to capture a CLI run once.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from crewgraph.errors import ConfigurationError, CrewGraphError, ReplayMismatchError
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.recording import (
    _append_line,
    _call_and_record,
    _exchange,
    _pretty,
    _read_records,
    _replay_record,
    normalize_request,
)
from crewgraph.llm.types import LLMResponse, ToolSpec
from crewgraph.tools.delegation import DelegationTool

__all__ = ["CASSETTE_ENV", "CASSETTE_MODE_ENV", "CassetteConfig", "CrewTape", "apply_cassette"]

CASSETTE_ENV = "CREWGRAPH_CASSETTE"
CASSETTE_MODE_ENV = "CREWGRAPH_CASSETTE_MODE"
Mode = Literal["auto", "record", "replay"]


class CassetteConfig(BaseModel):
    """Where a crew's LLM traffic is recorded and how (``Crew(cassette=CassetteConfig(...))``;
    a plain path means ``mode="auto"``)."""

    model_config = ConfigDict(extra="forbid")

    path: Path
    mode: Mode = "auto"

    @classmethod
    def coerce(cls, value: Any) -> CassetteConfig | None:
        """The crew's setting, else ``$CREWGRAPH_CASSETTE``, else None (no cassette).

        ``None`` (not set) follows the environment; ``False`` opts this crew out of it.
        """
        if value is False:
            return None
        if value is None:
            env = os.environ.get(CASSETTE_ENV, "").strip()
            if not env:
                return None
            mode = os.environ.get(CASSETTE_MODE_ENV, "auto").strip() or "auto"
            if mode not in ("auto", "record", "replay"):
                raise ConfigurationError(f"{CASSETTE_MODE_ENV} must be auto, record or replay, not {mode!r}")
            return cls(path=Path(env), mode=mode)
        if isinstance(value, cls):
            return value
        if isinstance(value, str | Path):
            return cls(path=Path(value))
        raise ConfigurationError(f"cassette must be a path or a CassetteConfig, not {type(value).__name__}")


class CrewTape:
    """One cassette file shared by every model of a run: records, or serves recordings by content."""

    def __init__(self, config: CassetteConfig) -> None:
        self.path = config.path.expanduser()
        self.replaying = config.mode == "replay" or (config.mode == "auto" and self.path.exists())
        self._lock = threading.Lock()
        self.records: list[dict[str, Any]] = []
        self._used: list[bool] = []
        if self.replaying:
            if not self.path.exists():
                raise ConfigurationError(f"cassette {str(self.path)!r} does not exist; record it first (mode='auto' or 'record')")
            self.records = _read_records(self.path)
            self._used = [False] * len(self.records)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("", encoding="utf-8")

    @property
    def remaining(self) -> int:
        """Recordings not replayed yet."""
        with self._lock:
            return self._used.count(False)

    def append(self, model: str, request: dict[str, Any], response: LLMResponse | None, error: CrewGraphError | None) -> None:
        _append_line(self.path, self._lock, _exchange(request, response, error, model))

    def take(self, model: str, request: dict[str, Any]) -> dict[str, Any]:
        """The first unused recording of ``model`` with exactly this request, else a diff error."""
        with self._lock:
            for i, record in enumerate(self.records):
                if not self._used[i] and record.get("model") == model and record["request"] == request:
                    self._used[i] = True
                    return record
            raise self._mismatch(model, request)

    def _mismatch(self, model: str, request: dict[str, Any]) -> ReplayMismatchError:
        wanted = _pretty(request)
        pool = [i for i, used in enumerate(self._used) if not used] or list(range(len(self.records)))
        if not pool:
            return ReplayMismatchError(f"cassette {str(self.path)!r} is empty; this run called {model!r}:\n{wanted}")
        best = max(
            pool,
            key=lambda i: (
                self.records[i].get("model") == model,
                difflib.SequenceMatcher(None, _pretty(self.records[i]["request"]), wanted).quick_ratio(),
            ),
        )
        rec = self.records[best]
        if rec["request"] == request and rec.get("model") != model:
            return ReplayMismatchError(
                f"the cassette {str(self.path)!r} recorded this request for model {rec.get('model')!r}, "
                f"but this run asks model {model!r}; use the same model or re-record the cassette."
            )
        diff = "".join(
            difflib.unified_diff(
                _pretty(rec["request"]).splitlines(keepends=True),
                wanted.splitlines(keepends=True),
                fromfile=f"recorded #{best + 1} (model {rec.get('model')!r}{'' if not self._used[best] else ', already used'})",
                tofile=f"requested (model {model!r})",
            )
        )
        return ReplayMismatchError(
            f"no recording in {str(self.path)!r} matches this LLM request (model {model!r}); "
            f"closest recording, as a diff:\n{diff or '(identical request, but every such recording was already used)'}\n"
            "Re-record the cassette (delete it, or mode='record') if the change is intended."
        )


class TapedLLM(BaseLLM):
    """A model seen through the tape: replays by content, or records what ``inner`` answers."""

    def __init__(self, tape: CrewTape, model: str, inner: BaseLLM | str | None) -> None:
        self.tape = tape
        self.model = model
        self._inner = inner

    def __deepcopy__(self, memo: dict[int, Any]) -> TapedLLM:
        return self  # copies of nodes share the tape

    @property
    def inner(self) -> BaseLLM:
        if not isinstance(self._inner, BaseLLM):
            from crewgraph.llm import LLM

            self._inner = LLM(model=self._inner or self.model)
        return self._inner

    def supports_function_calling(self) -> bool:
        """A client object answers for itself, replaying or not (asking makes no call), so a
        text-protocol run replays as it was recorded; a bare model name would be a fresh ``LLM``."""
        if isinstance(self._inner, BaseLLM):
            return self._inner.supports_function_calling()
        return True

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        request = normalize_request(messages, tools, response_model, kwargs)
        if self.tape.replaying:
            return _replay_record(self.tape.take(self.model, request), response_model)
        record = functools.partial(self.tape.append, self.model, request)
        return await _call_and_record(self.inner, messages, tools, response_model, kwargs, record)


def apply_cassette(graph: ExecutionGraph, default_llm: Any, setting: Any) -> tuple[ExecutionGraph, Any, CrewTape | None]:
    """Route every model of ``graph`` (and the run's ``default_llm``) through one tape.

    Returns the graph (rewired in place), the default model to give the
    scheduler and the tape (None when no cassette is configured: nothing changes).
    """
    config = CassetteConfig.coerce(setting)
    if config is None:
        return graph, default_llm, None
    tape = CrewTape(config)
    wrapped: dict[int, TapedLLM] = {}

    def wrap(llm: Any) -> Any:
        if llm is None or isinstance(llm, TapedLLM):
            return llm
        if id(llm) not in wrapped:
            model = llm if isinstance(llm, str) else str(getattr(llm, "model", type(llm).__name__))
            wrapped[id(llm)] = TapedLLM(tape, model, llm)
        return wrapped[id(llm)]

    for nid in list(graph.digraph.nodes):
        graph.replace_node(_rewire(graph.node(nid), wrap))
    default = default_llm if default_llm is not None else _default_model()
    return graph, wrap(default), tape


def _default_model() -> str:
    from crewgraph.llm.settings import default_model_name

    return default_model_name()


_MODEL_FIELDS = frozenset({"llm", "function_calling_llm"})
"""Node fields holding a model. ``function_calling_llm`` makes an agent's tool turns: left
out, those calls would go live during a replay (and never reach the recording)."""


def _rewire(value: Any, wrap: Any) -> Any:
    """A copy of a node (or tool, or tuple of them) whose models go through ``wrap``."""
    if isinstance(value, Node):
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            if not f.init:
                continue
            current = getattr(value, f.name)
            new = wrap(current) if f.name in _MODEL_FIELDS else _rewire(current, wrap)
            if new is not current:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, tuple) and value:
        items = tuple(_rewire(v, wrap) for v in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, DelegationTool):
        coworkers = tuple(dataclasses.replace(c, llm=wrap(c.llm)) for c in value.coworkers)
        return value.model_copy(update={"coworkers": coworkers})
    return value
