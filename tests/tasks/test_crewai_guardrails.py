"""``LLMGuardrail`` and ``HallucinationGuardrail`` at CrewAI's paths, with CrewAI's behaviour."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.outputs import TaskOutput
from crewgraph.tasks.hallucination_guardrail import HallucinationGuardrail
from crewgraph.tasks.llm_guardrail import LLMGuardrail, LLMGuardrailResult
from crewgraph.testing import FakeLLM


class Judge(LLM):
    """A CrewAI-style mock model: a subclass overriding call() (no request is ever sent)."""

    def __init__(self, verdicts: list[dict[str, Any]]) -> None:
        super().__init__(model="judge-model", base_url="http://127.0.0.1:9/v1", api_key="unused")
        self.verdicts = verdicts
        self.prompts: list[str] = []

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> str:
        self.prompts.append(json.dumps(messages))
        return json.dumps(self.verdicts.pop(0))


def _output(raw: str) -> TaskOutput:
    return TaskOutput(description="write", raw=raw, agent="Writer")


def test_llm_guardrail_judges_with_the_given_model() -> None:
    judge = Judge([{"valid": True, "feedback": None}, {"valid": False, "feedback": "It has 12 words, not 5."}])
    guardrail = LLMGuardrail(description="At most 5 words", llm=judge)
    assert guardrail(_output("hi there")) == (True, "hi there")
    assert guardrail(_output("a much longer answer")) == (False, "It has 12 words, not 5.")
    assert "At most 5 words" in judge.prompts[0] and "hi there" in judge.prompts[0]
    assert LLMGuardrailResult(valid=True).feedback is None


def test_llm_guardrail_on_a_task_retries_with_its_feedback() -> None:
    judge = Judge([{"valid": False, "feedback": "Too long."}, {"valid": True}])
    writer_llm = FakeLLM(["a very long first draft answer", "short"])
    writer = Agent(role="Writer", goal="write", backstory="b", llm=writer_llm)
    task = Task(description="Write", expected_output="text", agent=writer,
                guardrail=LLMGuardrail(description="Short", llm=judge))
    assert Crew(agents=[writer], tasks=[task]).kickoff().raw == "short"
    assert "Too long." in json.dumps(writer_llm.calls[1].messages)


def test_a_failing_judge_rejects_with_the_error() -> None:
    guardrail = LLMGuardrail(description="Short", llm=Judge([{"nonsense": 1}] * 5))
    ok, message = guardrail(_output("x"))
    assert ok is False and message.startswith("Error while validating the task output:")


def test_hallucination_guardrail_is_crewais_open_source_no_op(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="crewgraph.guardrails"):
        guardrail = HallucinationGuardrail(context="Paris is in France.", llm=FakeLLM([]), threshold=8.0)
        assert guardrail(_output("Paris is in Spain.")) == (True, "Paris is in Spain.")
    assert guardrail.description == "HallucinationGuardrail (no-op)"
    assert "no-op" in caplog.text
