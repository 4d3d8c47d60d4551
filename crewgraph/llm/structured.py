"""Structured output: pydantic models from model replies.

Two routes, because servers differ:

* :func:`create_structured` goes through instructor on an ``AsyncOpenAI``
  client in one of four modes (:data:`MODE_ORDER`: a forced tool call, a
  ``json_schema`` or ``json_object`` response format, or plain text with the
  schema in the prompt). Instructor feeds validation errors back to the model and
  retries a bounded number of times; every raw completion it receives is
  counted into the returned :class:`UsageMetrics` (failed attempts cost tokens
  too). Each completion is looked at before instructor parses it: a reply
  that ignored the mode but still holds the object (a forced tool call
  answered with ``<tool_call>`` text or JSON in prose, say) is taken as it is
  (repaired, validated); one that holds nothing parseable raises
  :class:`NoStructuredReply` when another mode can be tried, instead of being
  re-asked in a mode the model does not follow. The mode that worked is
  remembered per endpoint and model (:func:`remember_mode`,
  :func:`mode_plan`) so later calls start there.
* :func:`parse_model_output` is a pure helper for text-only models and for
  nodes that already hold a reply: it repairs fenced blocks, surrounding prose
  and truncated JSON before validating, and raises
  :class:`~crewgraph.errors.StructuredOutputError` naming the model and the
  problem.

instructor and openai are imported inside the functions that use them, so
importing this module stays cheap.
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from crewgraph.errors import StructuredOutputError
from crewgraph.llm._json_repair import extract_json
from crewgraph.outputs import UsageMetrics

__all__ = [
    "MODE_ORDER",
    "NoStructuredReply",
    "StructuredMode",
    "create_structured",
    "forget_modes",
    "is_response_format_rejection",
    "is_tools_rejection",
    "mode_plan",
    "parse_model_output",
    "remember_mode",
    "remembered_mode",
    "usage_from_completion",
]

M = TypeVar("M", bound=BaseModel)

StructuredMode = Literal["auto", "tools", "json_schema", "json_object", "json"]
"""How :class:`crewgraph.llm.LLM` asks for structured output.

``tools``: a forced tool call whose arguments are the object (best where
supported); ``json_schema``: ``response_format`` with the JSON schema;
``json_object``: ``response_format={"type": "json_object"}`` with the schema
in the prompt; ``json``: the schema in the prompt and a JSON reply in plain
text, repaired before validation (works with any chat model); ``auto``: those
in that order, moving on when the server rejects a mode or the model's reply
in it holds nothing parseable, starting where the last call to the same
endpoint and model succeeded.
"""

MODE_ORDER: tuple[str, ...] = ("tools", "json_schema", "json_object", "json")
"""The modes ``auto`` tries, in order."""

_INSTRUCTOR_MODES = {"tools": "TOOLS", "json_schema": "JSON_SCHEMA", "json_object": "JSON", "json": "MD_JSON"}
_IN_STRUCTURED_CALL: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "crewgraph_in_structured_call", default=False
)


class _HandledErrorsToDebug(logging.Filter):
    """Instructor logs every failed attempt at ERROR; inside our calls those failures are
    handled (retried, fallen back from, or re-raised as crewgraph errors with the same
    text), so they are demoted to DEBUG instead of alarming users twice."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _IN_STRUCTURED_CALL.get() and record.levelno > logging.DEBUG:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return True


_FILTER = _HandledErrorsToDebug()


def _demote_instructor_retry_logs() -> None:
    retry_logger = logging.getLogger("instructor.v2.retry")
    if _FILTER not in retry_logger.filters:
        retry_logger.addFilter(_FILTER)
_REJECTION_STATUSES = {400, 404, 405, 422, 500, 501}
_WORKING_MODES: dict[str, str] = {}
_WORKING_LOCK = threading.Lock()


class NoStructuredReply(StructuredOutputError):
    """The model's reply in a structured mode held nothing parseable (text for a forced tool
    call, prose for a JSON response format): the caller should try its next mode.
    ``usage`` is what the ignored attempt cost, when known (no default instance here: building
    a pydantic model at import time compiles its validator and loads pydantic's plugins)."""

    usage: UsageMetrics | None = None


def remembered_mode(key: str) -> str | None:
    """The structured mode that last worked for ``key`` (an ``endpoint|model``), if any."""
    with _WORKING_LOCK:
        return _WORKING_MODES.get(key)


def remember_mode(key: str, mode: str) -> None:
    """Note that ``mode`` worked for ``key``, for every client of that endpoint and model in this
    process (a model given by name is a new client in every step)."""
    with _WORKING_LOCK:
        _WORKING_MODES[key] = mode


def forget_modes(endpoint: str | None = None) -> None:
    """Forget the remembered modes of ``endpoint`` (every one when None): a server that was
    restarted with another model, or a test server reusing a port."""
    with _WORKING_LOCK:
        for key in [k for k in _WORKING_MODES if endpoint is None or k.startswith(f"{endpoint}|")]:
            del _WORKING_MODES[key]


def mode_plan(key: str, modes: Sequence[str]) -> list[str]:
    """``modes`` in the order to try them for ``key``: the one that worked last first, then the
    others in their usual order."""
    worked = remembered_mode(key)
    if worked is None or worked not in modes:
        return list(modes)
    return [worked, *(m for m in modes if m != worked)]


def parse_model_output(text: str | None, model: type[M]) -> M:
    """Validate a model's text reply into ``model``, repairing common JSON damage first.

    Handles ```json fences, prose before/after the object, trailing commas and
    output truncated mid-object (open strings and brackets are closed, a
    dangling member is dropped). Raises ``StructuredOutputError`` naming the
    model and what was wrong (no JSON found, or the validation errors).
    """
    name = model.__name__
    if text is None or not text.strip():
        raise StructuredOutputError(f"Cannot build {name}: the model returned no text.")
    try:
        data = extract_json(text)
    except ValueError as exc:
        raise StructuredOutputError(
            f"Cannot build {name}: no JSON found in the model's output ({exc}). "
            f"Output was: {_preview(text)}"
        ) from exc
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise StructuredOutputError(
            f"Cannot build {name}: the JSON does not match the schema: "
            f"{_summarize_validation(exc)}. Output was: {_preview(text)}"
        ) from exc


def _preview(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")


def _summarize_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "<root>"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    more = exc.error_count() - len(parts)
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def usage_from_completion(completion: Any) -> UsageMetrics:
    """Token usage of one ``ChatCompletion`` (zeros when the server sent none).

    ``successful_requests`` is 1: a completion arrived. Cached prompt tokens are
    read from ``usage.prompt_tokens_details.cached_tokens`` when reported.
    """
    usage = getattr(completion, "usage", None)
    if usage is None:
        return UsageMetrics(successful_requests=1)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    total = int(getattr(usage, "total_tokens", 0) or 0) or prompt + completion_tokens
    details = getattr(usage, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0) if details is not None else 0
    return UsageMetrics(
        prompt_tokens=prompt,
        completion_tokens=completion_tokens,
        total_tokens=total,
        cached_prompt_tokens=cached,
        successful_requests=1,
    )


def is_tools_rejection(status_code: int | None, message: str) -> bool:
    """True when an error means "this server/model does not do tool calling".

    Servers say it differently (Ollama: "does not support tools", vLLM:
    "tool choice requires --enable-auto-tool-choice", llama.cpp: "tools param
    requires --jinja", usually 400, sometimes 500/501), so this looks for a
    client/unsupported status and a mention of tools or functions.
    """
    if status_code not in _REJECTION_STATUSES:
        return False
    text = message.lower()
    return "tool" in text or "function" in text


def is_response_format_rejection(status_code: int | None, message: str) -> bool:
    """True when an error means the server refuses ``response_format`` JSON-schema requests."""
    if status_code not in _REJECTION_STATUSES:
        return False
    text = message.lower()
    return "response_format" in text or "json_schema" in text or "schema" in text


async def create_structured(
    client: Any,
    *,
    mode: str,
    model: str,
    messages: Sequence[dict[str, Any]],
    response_model: type[M],
    params: dict[str, Any],
    validation_retries: int = 2,
    can_fall_back: bool = False,
) -> tuple[M, UsageMetrics, Any]:
    """One structured call through instructor; returns (object, usage, last completion).

    ``client`` is an ``openai.AsyncOpenAI``; ``mode`` one of :data:`MODE_ORDER`.
    Validation failures are re-asked by instructor
    up to ``validation_retries`` times; when they are exhausted this raises
    ``StructuredOutputError`` naming the model and the last validation
    problem. A reply that ignored the mode but holds a valid object is taken
    as it is; with ``can_fall_back``, one that holds nothing parseable raises
    :class:`NoStructuredReply` at once. HTTP errors (``openai.APIError``) are
    re-raised unwrapped so the caller's retry policy can classify them.
    """
    import instructor
    import openai
    from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException

    if mode not in _INSTRUCTOR_MODES:
        raise ValueError(f"unknown structured mode {mode!r}; use one of {sorted(_INSTRUCTOR_MODES)}")
    usage = UsageMetrics()
    checked = client.with_options()  # a copy on the same connection pool, whose create we wrap
    create = checked.chat.completions.create

    async def _create(*args: Any, **kwargs: Any) -> Any:
        nonlocal usage
        completion = await create(*args, **kwargs)
        usage = usage + usage_from_completion(completion)
        _look_at(completion, mode, response_model, can_fall_back)
        return completion

    checked.chat.completions.create = _create
    structured_client = instructor.from_openai(
        checked, mode=getattr(instructor.Mode, _INSTRUCTOR_MODES[mode])
    )
    _demote_instructor_retry_logs()
    token = _IN_STRUCTURED_CALL.set(True)
    try:
        parsed, completion = await structured_client.create_with_completion(
            model=model,
            messages=list(messages),
            response_model=response_model,
            max_retries=validation_retries,
            **params,
        )
    except InstructorRetryException as exc:
        cause = _api_error_in_chain(exc, openai.APIError)
        if cause is not None:
            raise cause from cause.__cause__  # keep the transport's reason (a malformed reply, a deadline)
        salvaged = _api_error_in_chain(exc, _Salvaged)
        if isinstance(salvaged, _Salvaged):
            return _as_exact_type(salvaged.value, response_model), usage, salvaged.completion
        nothing = _api_error_in_chain(exc, NoStructuredReply)
        if isinstance(nothing, NoStructuredReply):
            nothing.usage = usage
            raise nothing from None
        raise StructuredOutputError(
            f"The model did not produce a valid {response_model.__name__} after "
            f"{exc.n_attempts} attempt(s): {_describe_instructor_error(exc)}"
        ) from exc
    except IncompleteOutputException as exc:
        raise StructuredOutputError(
            f"The model's {response_model.__name__} was cut off by the max_tokens limit; "
            "raise max_tokens or simplify the model."
        ) from exc
    finally:
        _IN_STRUCTURED_CALL.reset(token)
    return _as_exact_type(parsed, response_model), usage, completion


class _Salvaged(Exception):
    """Raised from inside instructor's loop to hand back an object read from a reply that
    ignored the mode (instructor would have re-asked for it)."""

    def __init__(self, value: BaseModel, completion: Any) -> None:
        super().__init__("structured object recovered from the reply's text")
        self.value = value
        self.completion = completion


def _look_at(completion: Any, mode: str, response_model: type[BaseModel], can_fall_back: bool) -> None:
    """Judge one completion before instructor parses it (see :func:`create_structured`).

    Returns when instructor should parse it (a tool call in tools mode, JSON text in the
    other modes); raises ``_Salvaged`` with the object when the reply ignored the mode but
    holds one; raises :class:`NoStructuredReply` (only when another mode can be tried) when
    it holds nothing parseable.
    """
    choices = getattr(completion, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    if message is None:
        return
    if mode == "tools" and getattr(message, "tool_calls", None):
        return
    content = message.content or ""
    if mode != "tools" and _is_json(content):
        return
    value = _salvage(content, response_model)
    if value is not None:
        raise _Salvaged(value, completion)
    if can_fall_back and (mode == "tools" or not _has_json(content)):
        raise NoStructuredReply(
            f"The model answered a {mode} request for {response_model.__name__} with nothing "
            f"parseable: {_preview(content) if content.strip() else 'an empty reply'}"
        )


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _has_json(text: str) -> bool:
    try:
        extract_json(text)
    except ValueError:
        return False
    return True


def _salvage(content: str, model: type[M]) -> M | None:
    """The object in a reply that ignored the mode: the arguments of a call written as text
    (``<tool_call>{"name": ..., "arguments": {...}}``, ``[TOOL_CALLS] [...]``), else the JSON
    itself, repaired; None when neither validates."""
    if not content.strip():
        return None
    try:
        data = extract_json(content)
    except ValueError:
        return None
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    arguments = _call_arguments(data)
    for candidate in ([arguments] if arguments is not None else []) + [data]:
        try:
            return model.model_validate(candidate)
        except ValidationError:
            continue
    return None


def _call_arguments(data: Any) -> Any:
    """The arguments of a call-shaped object (``name`` + ``arguments``/``parameters``), else None."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    key = next((k for k in ("arguments", "parameters") if k in data), None)
    if key is None or set(data) - {"name", key, "id", "type"}:
        return None
    value = data[key]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value


def _as_exact_type(value: Any, model: type[M]) -> M:
    """Instructor returns an instance of its own subclass of ``model``; hand back ``model`` itself.

    Values are copied without re-running validators (they already passed).
    """
    if type(value) is model:
        return value
    if isinstance(value, model):
        fields = {name: getattr(value, name) for name in type(value).model_fields}
        return model.model_construct(_fields_set=set(value.model_fields_set), **fields)
    return model.model_validate(value.model_dump() if isinstance(value, BaseModel) else value)


def _api_error_in_chain(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of type ``kind`` in ``exc``'s cause/context chain."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _describe_instructor_error(exc: Any) -> str:
    last = exc.__cause__
    if isinstance(last, ValidationError):
        return _summarize_validation(last)
    if isinstance(last, json.JSONDecodeError):
        return f"invalid JSON ({last.msg} at position {last.pos})"
    return str(last or exc).strip().splitlines()[0][:500]
