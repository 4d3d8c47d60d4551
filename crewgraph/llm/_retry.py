"""HTTP retry policy for model calls: what is transient, how long to wait, what to raise.

The openai SDK's own retries are switched off (``max_retries=0``) so that one
policy, here, decides: 429, 408/409, 5xx, timeouts and dropped connections are
retried with exponential backoff and jitter, honouring ``Retry-After`` (and
OpenAI's ``retry-after-ms``) up to a cap; other 4xx fail at once with the
server's own message. Each retry is published as an ``LLMCallRetryEvent``
through the caller's ``emit`` so runs show why they were slow. When retries run
out the error says so and carries ``retryable=False``: the node layer must not
multiply our attempts by its own.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from crewgraph.errors import LLMError, LLMRateLimitError

if TYPE_CHECKING:
    from tenacity import RetryCallState

__all__ = ["DEFAULT_MAX_RETRIES", "RetrySettings", "call_with_retries", "parse_retry_after", "stream_broken"]

T = TypeVar("T")
_log = logging.getLogger("crewgraph.llm")

_RETRYABLE_STATUSES = {408, 409, 425, 429}
DEFAULT_MAX_RETRIES = 16
"""Retries of a failure the server reported (429, 5xx) or a dropped/garbled reply: see docs/llm.md."""
_BUDGET_HINT = {
    "timeout": "raise LLM(timeout=...) or CREWGRAPH_LLM_TIMEOUT, or allow more with timeout_retries=...",
    "connect": "is the server running? connect_retries=... allows more attempts",
}
_DEFAULT_HINT = "raise LLM(max_retries=...) or CREWGRAPH_LLM_MAX_RETRIES to retry longer"
_HINTS = {
    401: "check the API key (api_key=... or OPENAI_API_KEY)",
    403: "the key is not allowed to use this model or endpoint",
    404: "check the model name and base_url",
}


@dataclass(frozen=True)
class RetrySettings:
    """Knobs of the policy; tests shrink the delays so retries cost milliseconds."""

    max_retries: int = DEFAULT_MAX_RETRIES
    initial_delay: float = 0.5
    max_delay: float = 10.0
    retry_after_max: float = 60.0
    timeout_retries: int = 1
    """Retries of an attempt that hit its deadline: a single-slot server is still busy with it."""
    connect_retries: int = 2
    """Retries of a refused connection: nothing listens there, waiting rarely helps."""


@dataclass(frozen=True)
class _Failure:
    """What went wrong in one attempt, in crewgraph terms."""

    retryable: bool
    status_code: int | None
    message: str
    retry_after: float | None = None
    kind: str = "status"
    """status, timeout, connect (refused), dropped, malformed or client."""


class _Transient(Exception):
    """Internal wrapper so tenacity retries exactly the failures we classified as transient."""

    def __init__(self, failure: _Failure, original: BaseException) -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.original = original


def parse_retry_after(headers: Any, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        import email.utils

        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def _server_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        msg = body.get("message") or body.get("error") or body.get("detail")
        if msg:
            return str(msg)
    if isinstance(body, str) and body.strip():
        return body.strip()
    return str(getattr(exc, "message", "") or exc)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes (explicit cause first, else implicit context), without cycles."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _connection_detail(exc: BaseException) -> tuple[str, bool]:
    """Why a connection failed, and whether waiting could help.

    A refused permission anywhere in the chain (e.g. crewgraph.testing's
    network block) will not heal by retrying; otherwise the deepest OS error
    ("Connection refused", "Name or service not known") is the useful part.
    """
    chain = _chain(exc)
    for link in chain:
        if isinstance(link, PermissionError):
            return f"{type(link).__name__}: {link}", False
    os_errors = [link for link in chain if isinstance(link, OSError)]
    best = os_errors[-1] if os_errors else (chain[1] if len(chain) > 1 else exc)
    return f"{type(best).__name__}: {best}", True


def _classify(
    exc: BaseException, *, endpoint: str, no_retry: Callable[[int | None, str], bool] | None
) -> _Failure | None:
    """Map an openai SDK error to a failure; None for errors that are not HTTP-level."""
    import openai

    from crewgraph.llm._transport import MalformedReplyError

    for link in _chain(exc):
        if isinstance(link, MalformedReplyError):
            return _Failure(True, None, str(link), kind="malformed")
    if isinstance(exc, TimeoutError):
        return _Failure(True, None, f"request to {endpoint} timed out", kind="timeout")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        server_msg = _server_message(exc)
        hint = _HINTS.get(status)
        message = f"HTTP {status} from {endpoint}: {server_msg}" + (f" ({hint})" if hint else "")
        retryable = status in _RETRYABLE_STATUSES or status >= 500
        if no_retry is not None and no_retry(status, server_msg):
            retryable = False
        retry_after = parse_retry_after(exc.response.headers) if status in (429, 503) else None
        return _Failure(retryable, status, message, retry_after)
    if isinstance(exc, openai.APITimeoutError):
        return _Failure(True, None, f"request to {endpoint} timed out{_timeout_detail(exc)}", kind="timeout")
    if isinstance(exc, openai.APIConnectionError):
        detail, retryable = _connection_detail(exc)
        refused = any(isinstance(link, ConnectionRefusedError) for link in _chain(exc)) or (
            "connect" in type(exc.__cause__).__name__.lower())
        if refused:
            return _Failure(retryable, None, f"could not connect to {endpoint} ({detail})", kind="connect")
        return _Failure(retryable, None, f"connection to {endpoint} failed ({detail})", kind="dropped")
    if isinstance(exc, openai.OpenAIError):
        return _Failure(False, None, f"openai client error for {endpoint}: {exc}", kind="client")
    return None


def _timeout_detail(exc: BaseException) -> str:
    """Why the attempt timed out, when the transport said so (total deadline or idle stream)."""
    for link in _chain(exc)[1:]:
        text = str(link)
        if text and "timed out" not in text.lower():
            return f" ({text})"
    return ""


def _to_llm_error(failure: _Failure, *, model: str, attempts: int, exhausted: bool = False) -> LLMError:
    tail = ""
    if exhausted:
        hint = _BUDGET_HINT.get(failure.kind, _DEFAULT_HINT)
        tail = f" (gave up after {attempts} attempt{'s' if attempts > 1 else ''}; {hint})"
    elif attempts > 1:
        tail = f" (on attempt {attempts})"
    if failure.status_code == 429:
        err: LLMError = LLMRateLimitError(
            f"LLM {model!r} was rate limited: {failure.message}{tail}",
            retry_after=failure.retry_after,
        )
    else:
        err = LLMError(
            f"LLM {model!r} call failed: {failure.message}{tail}", status_code=failure.status_code
        )
    # Our retries are spent (or the error is permanent): callers must not retry again.
    err.retryable = False
    return err


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    settings: RetrySettings,
    model: str,
    endpoint: str,
    emit: Callable[[Any], None] | None = None,
    no_retry: Callable[[int | None, str], bool] | None = None,
) -> T:
    """Run ``attempt`` until it succeeds or the failure is permanent / retries run out.

    ``no_retry(status, server_message)`` lets the caller veto retrying errors
    that look transient but are not (a server that refuses tools with a 500).
    Non-HTTP exceptions (including crewgraph errors raised inside ``attempt``)
    propagate unchanged on the first occurrence.
    """
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    attempts = 0
    by_kind: dict[str, int] = {}
    kind_budget = {"timeout": settings.timeout_retries, "connect": settings.connect_retries}

    async def _once() -> T:
        nonlocal attempts
        attempts += 1
        try:
            return await attempt()
        except Exception as exc:
            failure = _classify(exc, endpoint=endpoint, no_retry=no_retry)
            if failure is None:
                raise
            if not failure.retryable:
                raise _to_llm_error(failure, model=model, attempts=attempts) from exc
            by_kind[failure.kind] = by_kind.get(failure.kind, 0) + 1
            budget = kind_budget.get(failure.kind)
            if budget is not None and by_kind[failure.kind] > budget:
                raise _to_llm_error(failure, model=model, attempts=attempts, exhausted=True) from exc
            raise _Transient(failure, exc) from exc

    def _wait(state: RetryCallState) -> float:
        outcome = state.outcome
        exc = outcome.exception() if outcome is not None else None
        if isinstance(exc, _Transient) and exc.failure.retry_after is not None:
            return min(exc.failure.retry_after, settings.retry_after_max)
        base = min(settings.max_delay, settings.initial_delay * 2 ** (state.attempt_number - 1))
        return base / 2 + random.uniform(0, base / 2)

    def _before_sleep(state: RetryCallState) -> None:
        outcome = state.outcome
        exc = outcome.exception() if outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        message = exc.failure.message if isinstance(exc, _Transient) else str(exc)
        status = exc.failure.status_code if isinstance(exc, _Transient) else None
        _log.info("LLM %s attempt %d failed (%s); retrying in %.2fs",
                  model, state.attempt_number, message, wait)
        if emit is not None:
            _emit_retry(emit, model=model, attempt=state.attempt_number, wait=wait, error=message,
                        max_attempts=settings.max_retries + 1, status_code=status)

    retrying = AsyncRetrying(
        stop=stop_after_attempt(settings.max_retries + 1),
        wait=_wait,
        retry=retry_if_exception(lambda e: isinstance(e, _Transient)),
        before_sleep=_before_sleep,
        reraise=True,
    )
    try:
        return await retrying(_once)
    except _Transient as exc:
        raise _to_llm_error(exc.failure, model=model, attempts=attempts, exhausted=True) from exc.original


def _emit_retry(emit: Callable[[Any], None], *, model: str, attempt: int, wait: float, error: str,
                max_attempts: int | None = None, status_code: int | None = None) -> None:
    from crewgraph.events.llm_events import LLMCallRetryEvent

    wants = getattr(emit, "wants", None)  # a node's emitter: build the event only for a listener
    if wants is not None and not wants(LLMCallRetryEvent):
        return
    try:
        emit(LLMCallRetryEvent(model=model, attempt=attempt, wait_seconds=wait, error=error,
                               max_attempts=max_attempts, status_code=status_code))
    except Exception:  # a broken listener must not turn a transient error into a failure
        _log.exception("emit(LLMCallRetryEvent) failed")


def stream_broken(exc: BaseException, *, model: str, endpoint: str, deltas: int) -> LLMError:
    """The error for a stream that failed after it started.

    Not retried, here or by the node: the deltas already delivered cannot be
    taken back, and a retry would show the consumer the same text twice.
    """
    import openai

    failure = _classify(exc, endpoint=endpoint, no_retry=None) if isinstance(exc, openai.OpenAIError) else None
    detail = failure.message if failure is not None else f"{type(exc).__name__}: {exc}"
    return LLMError(
        f"LLM {model!r} stream from {endpoint} broke after {deltas} deltas: {detail}",
        status_code=failure.status_code if failure is not None else None,
        retryable=False,
    )
