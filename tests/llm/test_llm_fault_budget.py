"""The default retry budget: a six-task crew against a server failing 70% of requests with
429/500/503 completes in 5 of 5 seeded runs with exact outputs and token counts; at 90% it
fails with an error that says how to raise the budget. Backoff is shrunk to milliseconds;
the budget (the number of attempts) is the default."""

from __future__ import annotations

from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, CrewOutput, Task
from crewgraph.errors import LLMError
from crewgraph.llm._retry import DEFAULT_MAX_RETRIES
from crewgraph.testing import Faults, OpenAICompatServer

ANSWERS = [f"answer {i}: " + "x" * (10 * i) for i in range(1, 7)]


def _run(faults: Faults | None) -> tuple[CrewOutput, OpenAICompatServer]:
    with OpenAICompatServer(ANSWERS, faults=faults) as server:
        llm = LLM(model="m", base_url=server.base_url, api_key="k",
                  retry_initial_delay=0.0005, retry_max_delay=0.001, retry_after_max=0.001)
        assert llm.max_retries == DEFAULT_MAX_RETRIES == 16
        agent = Agent(role="Worker", goal="Work", backstory="Steady", llm=llm)
        tasks = [Task(name=f"step{i}", description=f"Do step {i}", expected_output="an answer", agent=agent)
                 for i in range(1, 7)]
        return Crew(agents=[agent], tasks=tasks).kickoff(), server


def _usage(out: CrewOutput) -> dict[str, Any]:
    return out.token_usage.model_dump()


def test_seventy_percent_failures_five_of_five_seeded_runs() -> None:
    healthy, _ = _run(None)
    for seed in range(5):
        faults = Faults(rate=0.7, seed=seed)
        out, server = _run(faults)
        assert [t.raw for t in out.tasks_output] == ANSWERS, seed
        assert _usage(out) == _usage(healthy), seed  # failed attempts cost nothing, each success counted once
        assert faults.passed == 6 and faults.injected >= 6, seed
        assert len(server.chat_requests) == 6 + faults.injected


def test_ninety_percent_failures_fail_with_how_to_raise_the_budget() -> None:
    faults = Faults(rate=0.9, seed=0)
    with pytest.raises(LLMError) as info:
        _run(faults)
    message = str(info.value)
    assert "Agent 'Worker' on task 'step" in message
    assert "gave up after 17 attempts; raise LLM(max_retries=...) or CREWGRAPH_LLM_MAX_RETRIES" in message
    assert info.value.retryable is False
