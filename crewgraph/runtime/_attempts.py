"""One node step under its retry and timeout policies (tenacity + asyncio.wait_for)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from crewgraph.errors import NodeTimeoutError
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy

if TYPE_CHECKING:
    from tenacity import RetryCallState

__all__ = ["run_step_with_policies"]

OnRetry = Callable[[int, float, BaseException], None]


async def run_step_with_policies(
    node: Node, ctx: NodeContext, on_retry: OnRetry, on_attempt: Callable[[int], None]
) -> NodeResult:
    """Run ``node.run(ctx)`` until it succeeds or its RetryPolicy gives up.

    Each attempt gets ``ctx.attempt``; a timeout counts as a (retryable)
    failure. Backoff is exponential with jitter, as tenacity computes it.
    """
    policy = node.retry
    timeout = node.timeout.seconds
    if policy.max_attempts == 1:
        on_attempt(1)
        return await _one_attempt(node, ctx, timeout)

    from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        if exc is not None:
            on_retry(state.attempt_number, float(wait), exc)

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.max_attempts),
        wait=lambda state: _backoff(policy, state.attempt_number),
        retry=retry_if_exception(policy.should_retry),
        before_sleep=before_sleep,
        reraise=True,
        sleep=_sleep,
    )
    async for attempt in retrying:
        with attempt:
            n = attempt.retry_state.attempt_number
            on_attempt(n)
            return await _one_attempt(node, ctx.evolve(attempt=n), timeout)
    raise AssertionError("unreachable")  # pragma: no cover


def _backoff(policy: RetryPolicy, attempt: int) -> float:
    """Exponential backoff with additive jitter, capped (the same shape on every tenacity version)."""
    delay = policy.initial_delay * policy.multiplier ** (attempt - 1)
    return min(policy.max_delay, delay + random.uniform(0, policy.jitter))


async def _sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def _one_attempt(node: Node, ctx: NodeContext, timeout: float | None) -> NodeResult:
    if timeout is None:
        return await node.run(ctx)
    try:
        return await asyncio.wait_for(node.run(ctx), timeout)
    except TimeoutError:
        raise NodeTimeoutError(
            f"node {node.id!r} ({node.kind}) timed out after {timeout:g}s",
            node_id=node.id,
            kind=node.kind,
        ) from None


