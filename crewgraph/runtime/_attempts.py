"""One node step under its retry and timeout policies (tenacity + asyncio.wait_for)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from crewgraph.errors import NodeTimeoutError
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy

if TYPE_CHECKING:
    from tenacity import RetryCallState

__all__ = ["run_step_with_policies"]

OnRetry = Callable[[int, float, BaseException], None]
Step = Callable[[Node, NodeContext], Awaitable[NodeResult]]
"""Runs one step of a node somewhere (an executor session's ``run_step``); None: ``node.run`` here."""


async def run_step_with_policies(
    node: Node,
    ctx: NodeContext,
    on_retry: OnRetry,
    on_attempt: Callable[[int], None],
    step: Step | None = None,
) -> NodeResult:
    """Run ``node.run(ctx)`` until it succeeds or its RetryPolicy gives up.

    Each attempt gets ``ctx.attempt``; a timeout counts as a (retryable)
    failure. Backoff is exponential with jitter, as tenacity computes it. The first
    attempt runs without tenacity; a retryable failure hands the rest to it.
    With ``step`` (an executor's), each attempt is ``step(node, ctx)`` instead.
    """
    policy = node.retry
    timeout = node.timeout.seconds
    on_attempt(1)
    if policy.max_attempts == 1:
        return await _one_attempt(node, ctx, timeout, step)
    try:
        return await _one_attempt(node, ctx, timeout, step)
    except Exception as exc:
        if not policy.should_retry(exc):
            raise
        first_error = exc
    # Only a step that failed pays for tenacity's set-up (an AsyncRetrying per step was
    # most of the per-step cost of a large run whose steps never fail).
    return await _retry_after_first_failure(node, ctx, timeout, first_error, on_retry, on_attempt, step)


async def _retry_after_first_failure(
    node: Node,
    ctx: NodeContext,
    timeout: float | None,
    first_error: BaseException,
    on_retry: OnRetry,
    on_attempt: Callable[[int], None],
    step: Step | None = None,
) -> NodeResult:
    """Attempts 2..max_attempts under tenacity, after attempt 1 failed with ``first_error``."""
    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    policy = node.retry
    wait = _backoff(policy, 1)
    on_retry(1, wait, first_error)
    await _sleep(wait)

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        pause = state.next_action.sleep if state.next_action else 0.0
        if exc is not None:
            on_retry(state.attempt_number + 1, float(pause), exc)

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.max_attempts - 1),
        wait=lambda state: _backoff(policy, state.attempt_number + 1),
        retry=retry_if_exception(policy.should_retry),
        before_sleep=before_sleep,
        reraise=True,
        sleep=_sleep,
    )
    async for attempt in retrying:
        with attempt:
            n = attempt.retry_state.attempt_number + 1
            on_attempt(n)
            return await _one_attempt(node, ctx.evolve(attempt=n), timeout, step)
    raise AssertionError("unreachable")  # pragma: no cover


def _backoff(policy: RetryPolicy, attempt: int) -> float:
    """Exponential backoff with additive jitter, capped (the same shape on every tenacity version)."""
    delay = policy.initial_delay * policy.multiplier ** (attempt - 1)
    return min(policy.max_delay, delay + random.uniform(0, policy.jitter))


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def _one_attempt(node: Node, ctx: NodeContext, timeout: float | None, step: Step | None) -> NodeResult:
    if timeout is None:
        return await (node.run(ctx) if step is None else step(node, ctx))
    try:
        return await asyncio.wait_for(node.run(ctx) if step is None else step(node, ctx), timeout)
    except TimeoutError:
        raise NodeTimeoutError(
            f"node {node.id!r} ({node.kind}) timed out after {timeout:g}s",
            node_id=node.id,
            kind=node.kind,
        ) from None


