"""Structured output: pydantic models from model replies.

Two routes, because servers differ:

* :func:`create_structured` goes through instructor on an ``AsyncOpenAI``
  client (TOOLS mode where the server supports tool calling, JSON_SCHEMA or
  MD_JSON otherwise). Instructor feeds validation errors back to the model and
  retries a bounded number of times; every raw completion it receives is
  counted into the returned :class:`UsageMetrics` (failed attempts cost tokens
  too).
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
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from crewgraph.errors import StructuredOutputError
from crewgraph.llm._json_repair import extract_json
from crewgraph.outputs import UsageMetrics

__all__ = [
    "StructuredMode",
    "create_structured",
    "is_response_format_rejection",
    "is_tools_rejection",
    "parse_model_output",
    "usage_from_completion",
]

M = TypeVar("M", bound=BaseModel)

StructuredMode = Literal["auto", "tools", "json_schema", "json"]
"""How :class:`crewgraph.llm.LLM` asks for structured output.

``tools``: a forced tool call whose arguments are the object (best where
supported); ``json_schema``: ``response_format`` with the JSON schema;
``json``: the schema in the prompt and a fenced JSON reply (works with any
chat model); ``auto``: ``tools``, falling back to ``json_schema`` then
``json`` when the server rejects the previous one.
"""

_INSTRUCTOR_MODES = {"tools": "TOOLS", "json_schema": "JSON_SCHEMA", "json": "MD_JSON"}
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
) -> tuple[M, UsageMetrics, Any]:
    """One structured call through instructor; returns (object, usage, last completion).

    ``client`` is an ``openai.AsyncOpenAI``; ``mode`` one of ``tools``,
    ``json_schema``, ``json``. Validation failures are re-asked by instructor
    up to ``validation_retries`` times; when they are exhausted this raises
    ``StructuredOutputError`` naming the model and the last validation
    problem. HTTP errors (``openai.APIError``) are re-raised unwrapped so the
    caller's retry policy can classify them.
    """
    import instructor
    import openai
    from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException
    from instructor.core.hooks import Hooks

    if mode not in _INSTRUCTOR_MODES:
        raise ValueError(f"unknown structured mode {mode!r}; use one of {sorted(_INSTRUCTOR_MODES)}")
    structured_client = instructor.from_openai(
        client, mode=getattr(instructor.Mode, _INSTRUCTOR_MODES[mode])
    )
    usage = UsageMetrics()

    def _count(completion: Any) -> None:
        nonlocal usage
        usage = usage + usage_from_completion(completion)

    hooks = Hooks()
    hooks.on("completion:response", _count)
    _demote_instructor_retry_logs()
    token = _IN_STRUCTURED_CALL.set(True)
    try:
        parsed, completion = await structured_client.create_with_completion(
            model=model,
            messages=list(messages),
            response_model=response_model,
            max_retries=validation_retries,
            hooks=hooks,
            **params,
        )
    except InstructorRetryException as exc:
        cause = _api_error_in_chain(exc, openai.APIError)
        if cause is not None:
            raise cause from None
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
