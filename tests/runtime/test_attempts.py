"""A step's attempts: the first runs without tenacity, a retryable failure hands over to it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from crewgraph.graph import Node, NodeContext, NodeResult, RetryPolicy
from crewgraph.runtime._attempts import run_step_with_policies


@dataclass(frozen=True)
class Flaky(Node):
    kind: ClassVar[str] = "flaky"
    failures: int = 0
    calls: list[int] | None = None

    async def run(self, ctx: NodeContext) -> NodeResult:
        assert self.calls is not None
        self.calls.append(ctx.attempt)
        if len(self.calls) <= self.failures:
            raise ConnectionError(f"boom {len(self.calls)}")
        return NodeResult(output=ctx.attempt)


def _run(node: Node) -> tuple[Any, list[int], list[tuple[int, str]]]:
    attempts: list[int] = []
    retries: list[tuple[int, str]] = []
    result = asyncio.run(
        run_step_with_policies(
            node, NodeContext(), lambda n, wait, exc: retries.append((n, str(exc))), attempts.append
        )
    )
    return result.output, attempts, retries


def test_attempts_are_numbered_across_the_first_attempt_and_tenacity() -> None:
    calls: list[int] = []
    policy = RetryPolicy(max_attempts=4, initial_delay=0.0, max_delay=0.0, jitter=0.0)
    node = Flaky(id="n", failures=2, calls=calls, retry=policy)
    output, attempts, retries = _run(node)
    assert output == 3
    assert calls == [1, 2, 3]
    assert attempts == [1, 2, 3]
    assert retries == [(1, "boom 1"), (2, "boom 2")]


def test_the_budget_counts_the_first_attempt() -> None:
    calls: list[int] = []
    policy = RetryPolicy(max_attempts=3, initial_delay=0.0, max_delay=0.0, jitter=0.0)
    with pytest.raises(ConnectionError, match="boom 3"):
        _run(Flaky(id="n", failures=5, calls=calls, retry=policy))
    assert calls == [1, 2, 3]


def test_a_final_error_is_not_retried() -> None:
    calls: list[int] = []

    @dataclass(frozen=True)
    class Final(Flaky):
        async def run(self, ctx: NodeContext) -> NodeResult:
            assert self.calls is not None
            self.calls.append(ctx.attempt)
            raise ValueError("not retryable here")

    policy = RetryPolicy(max_attempts=3, initial_delay=0.0, retry_on=(ConnectionError,))
    with pytest.raises(ValueError):
        _run(Final(id="n", calls=calls, retry=policy))
    assert calls == [1]
