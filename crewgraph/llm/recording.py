"""Record real model exchanges once, replay them offline and deterministically.

``RecordingLLM`` wraps any :class:`BaseLLM` and appends each request and its
reply to a JSON-lines file; ``ReplayLLM`` answers from that file without a
network, raising :class:`~crewgraph.errors.ReplayMismatchError` with a unified
diff when the code now asks something different. This turns an expensive,
flaky end-to-end run into a fast regression test, and the diff shows exactly
which prompt changed. ``cassette(path, llm)`` picks the mode from whether the
file exists.

File format, one JSON object per line::

    {"request": {"messages": [...], "tools": [{"name", "parameters"}],
                 "response_model": {"name", "schema"} | null, "params": {...}},
     "response": {"content", "tool_calls", "parsed", "usage", "model", "finish_reason"}
                 | null,
     "error": {"type", "message", "status_code"} | null,
     "model": "..."}
"""

from __future__ import annotations

import difflib
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from crewgraph.errors import (
    CrewGraphError,
    LLMError,
    LLMRateLimitError,
    ReplayMismatchError,
    StructuredOutputError,
)
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse, ToolCall, ToolSpec
from crewgraph.outputs import UsageMetrics

__all__ = ["RecordingLLM", "ReplayLLM", "cassette", "normalize_request"]

_REPLAYABLE_ERRORS: dict[str, type[CrewGraphError]] = {
    "LLMError": LLMError,
    "LLMRateLimitError": LLMRateLimitError,
    "StructuredOutputError": StructuredOutputError,
}


def normalize_request(
    messages: list[dict[str, Any]],
    tools: list[ToolSpec] | None,
    response_model: type[BaseModel] | None,
    kwargs: dict[str, Any],
) -> dict[str, Any]:
    """The comparable, JSON-safe form of a request (callables such as ``emit`` dropped)."""
    params = {
        k: v for k, v in sorted(kwargs.items()) if not callable(v) and _json_safe(v)
    }
    return {
        "messages": json.loads(json.dumps(messages, default=str)),
        "tools": [{"name": t.name, "parameters": t.parameters} for t in tools or []],
        "response_model": (
            {"name": response_model.__name__, "schema": response_model.model_json_schema()}
            if response_model is not None
            else None
        ),
        "params": params,
    }


def _json_safe(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _response_to_json(response: LLMResponse) -> dict[str, Any]:
    return {
        "content": response.content,
        "tool_calls": [tc.model_dump() for tc in response.tool_calls],
        "parsed": response.parsed.model_dump(mode="json") if response.parsed is not None else None,
        "usage": response.usage.model_dump(),
        "model": response.model,
        "finish_reason": response.finish_reason,
    }


def _exchange(
    request: dict[str, Any], response: LLMResponse | None, error: CrewGraphError | None, model: str
) -> dict[str, Any]:
    """One line of the file (see the module docstring); the crew cassette writes the same lines."""
    return {
        "request": request,
        "response": _response_to_json(response) if response is not None else None,
        "error": (
            {"type": type(error).__name__, "message": str(error), "status_code": getattr(error, "status_code", None)}
            if error is not None
            else None
        ),
        "model": model,
    }


def _append_line(path: Path, lock: threading.Lock, record: dict[str, Any]) -> None:
    """Append ``record`` as one JSON line, written whole under ``lock`` so concurrent calls never interleave."""
    line = json.dumps(record, ensure_ascii=False, default=str)
    with lock, path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _read_records(path: Path) -> list[dict[str, Any]]:
    """Every recorded exchange of a JSON-lines file, in order (blank lines skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _replay_record(record: dict[str, Any], response_model: type[BaseModel] | None) -> LLMResponse:
    """The recorded reply as an ``LLMResponse``, or the recorded error raised again.

    ``parsed`` is re-validated into ``response_model`` so callers get their
    own model class back, not a dict.
    """
    error = record.get("error")
    if error:
        cls = _REPLAYABLE_ERRORS.get(str(error.get("type")), LLMError)
        if cls is LLMError:
            raise LLMError(str(error.get("message", "")), status_code=error.get("status_code"))
        raise cls(str(error.get("message", "")))
    data = record.get("response") or {}
    parsed = None
    if data.get("parsed") is not None and response_model is not None:
        parsed = response_model.model_validate(data["parsed"])
    return LLMResponse(
        content=data.get("content"),
        tool_calls=[ToolCall(**tc) for tc in data.get("tool_calls") or []],
        parsed=parsed,
        usage=UsageMetrics(**(data.get("usage") or {})),
        model=data.get("model"),
        finish_reason=data.get("finish_reason"),
    )


async def _call_and_record(
    inner: BaseLLM,
    messages: list[dict[str, Any]],
    tools: list[ToolSpec] | None,
    response_model: type[BaseModel] | None,
    kwargs: dict[str, Any],
    record: Callable[[LLMResponse | None, CrewGraphError | None], None],
) -> LLMResponse:
    """Call ``inner`` and ``record`` its reply, or its crewgraph error before re-raising it.

    Only crewgraph errors are recorded (a replay can raise them again);
    anything else is a bug or a cancellation, not part of the exchange.
    """
    try:
        from crewgraph.llm.front_door import invoke

        response = await invoke(inner, messages, tools=tools, response_model=response_model, **kwargs)
    except CrewGraphError as exc:
        record(None, exc)
        raise
    record(response, None)
    return response


def _pretty(value: Any) -> str:
    """Stable, readable JSON for the diffs of a replay mismatch."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class RecordingLLM(BaseLLM):
    """Pass calls through to ``inner`` and append each exchange to ``path`` (JSON lines).

    Failures that are crewgraph LLM errors are recorded too, so a replay
    reproduces them. Safe to share between tasks and threads: each line is
    written whole under a lock.
    """

    def __init__(self, inner: BaseLLM, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        self.model = inner.model
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def __deepcopy__(self, memo: dict[int, Any]) -> RecordingLLM:
        """Copies append to the same file under the same lock, so they share this object."""
        return self

    @property
    def rate_limit_key(self) -> str:
        return self.inner.rate_limit_key

    def supports_function_calling(self) -> bool:
        return self.inner.supports_function_calling()

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        request = normalize_request(messages, tools, response_model, kwargs)

        def record(response: LLMResponse | None, error: CrewGraphError | None) -> None:
            _append_line(self.path, self._lock, _exchange(request, response, error, self.model))

        return await _call_and_record(self.inner, messages, tools, response_model, kwargs, record)


class ReplayLLM(BaseLLM):
    """Answer from a recording made by :class:`RecordingLLM`, offline.

    ``strict=True`` (default): calls must come in the recorded order and each
    request must equal its recording, else ``ReplayMismatchError`` shows a
    unified diff. ``strict=False``: a call takes the first unused recording
    whose request is equal, else the next unused one in order (useful when
    concurrent steps interleave differently or a prompt changed cosmetically).
    Replayed ``parsed`` objects are re-validated into the requested model.
    """

    def __init__(self, path: str | Path, *, strict: bool = True) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no LLM recording at {self.path}; record one with RecordingLLM")
        self.records = _read_records(self.path)
        self.strict = strict
        self.model = str(next((r["model"] for r in self.records if r.get("model")), "replay"))
        self._used = [False] * len(self.records)
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, Any]) -> ReplayLLM:
        """Copies must consume the same recording in order, so they share this object."""
        return self

    @property
    def remaining(self) -> int:
        """Recorded exchanges not yet replayed."""
        with self._lock:
            return self._used.count(False)

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        request = normalize_request(messages, tools, response_model, kwargs)
        return _replay_record(self._take(request), response_model)

    def _take(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            unused = [i for i, used in enumerate(self._used) if not used]
            if not unused:
                raise ReplayMismatchError(
                    f"The recording {self.path} has no exchange left: all {len(self.records)} "
                    "were replayed and the code made one more LLM call. Re-record it "
                    "(delete the file, or use cassette(..., mode='record')).\n"
                    f"Unexpected request:\n{_pretty(request)}"
                )
            chosen = unused[0]
            if not self.strict:
                chosen = next((i for i in unused if self.records[i]["request"] == request), chosen)
            recorded = self.records[chosen]["request"]
            if self.strict and recorded != request:
                diff = "".join(difflib.unified_diff(
                    _pretty(recorded).splitlines(keepends=True),
                    _pretty(request).splitlines(keepends=True),
                    fromfile=f"recorded (call #{chosen + 1})",
                    tofile="requested",
                ))
                raise ReplayMismatchError(
                    f"LLM call #{chosen + 1} differs from the recording in {self.path}:\n{diff}"
                )
            self._used[chosen] = True
            return self.records[chosen]


def cassette(
    path: str | Path,
    llm: BaseLLM | str | None = None,
    *,
    mode: Literal["auto", "record", "replay"] = "auto",
    strict: bool = True,
) -> BaseLLM:
    """Record to ``path`` if it does not exist yet, else replay it.

    ``mode="record"`` always re-records (the file is replaced); ``"replay"``
    never touches the network. Recording needs ``llm`` (an LLM or model name).
    """
    from crewgraph.llm import as_llm

    target = Path(path)
    if mode not in ("auto", "record", "replay"):
        raise ValueError(f"mode must be 'auto', 'record' or 'replay', got {mode!r}")
    if mode == "replay" or (mode == "auto" and target.exists()):
        return ReplayLLM(target, strict=strict)
    inner = as_llm(llm)
    if inner is None:
        raise ValueError(
            f"cassette({str(target)!r}) has nothing to replay yet and no llm to record with; "
            "pass llm=LLM(...) (or a model name) to record it once."
        )
    if target.exists():
        target.unlink()
    return RecordingLLM(inner, target)
