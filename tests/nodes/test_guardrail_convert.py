"""guardrail and convert nodes alone: pass, fail-and-redo, exhaustion, LLM judge, parsing."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from crewgraph.errors import GuardrailError
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.nodes.convert import ConvertNode
from crewgraph.nodes.guardrail import GuardrailNode, GuardrailVerdict
from crewgraph.outputs import OutputFormat, TaskOutput
from crewgraph.testing import FakeLLM, run_node


class Post(BaseModel):
    title: str
    words: int


AGENT = AgentStepNode(id="t.agent", task_name="post", description="Write", expected_output="post", agent_role="Writer")


def short(output: TaskOutput) -> tuple[bool, object]:
    return (len(output.raw) <= 5, output.raw if len(output.raw) <= 5 else "too long, max 5 chars")


def out(raw: str) -> TaskOutput:
    return TaskOutput(description="Write", name="post", raw=raw, agent="Writer")


def test_guardrail_passes_output_through() -> None:
    node = GuardrailNode(id="t.g1", task_name="post", checks=(short,), source_node="t.agent", redo=(AGENT,))
    assert run_node(node, upstream={"t.agent": out("ok")}).output.raw == "ok"


def test_guardrail_failure_feeds_reason_back_and_retries() -> None:
    llm = FakeLLM(responses=["still way too long", "tiny"])
    node = GuardrailNode(id="t.g1", task_name="post", checks=(short,), source_node="t.agent", redo=(AGENT,))
    result = run_node(node, upstream={"t.agent": out("a long first answer")}, llm=llm)
    assert result.output.raw == "tiny"
    assert "too long, max 5 chars" in llm.calls[0].prompt
    assert result.info["guardrail_retries"] == 2


def test_guardrail_exhaustion_raises_naming_task_and_reason() -> None:
    llm = FakeLLM(responses=["long long", "longer longer"])
    node = GuardrailNode(id="t.g1", task_name="post", checks=(short,), source_node="t.agent", redo=(AGENT,), max_retries=2)
    with pytest.raises(GuardrailError, match=r"Task 'post' failed its guardrail 'short' after 2 retries\. Last reason: too long"):
        run_node(node, upstream={"t.agent": out("first long")}, llm=llm)


def test_text_guardrail_is_judged_by_the_llm() -> None:
    llm = FakeLLM(responses=[GuardrailVerdict(valid=False, feedback="be polite"), "Dear sir", GuardrailVerdict(valid=True)])
    node = GuardrailNode(id="t.g1", task_name="post", checks=("must be polite",), source_node="t.agent", redo=(AGENT,))
    result = run_node(node, upstream={"t.agent": out("go away")}, llm=llm)
    assert result.output.raw == "Dear sir"
    assert llm.calls[0].response_model is GuardrailVerdict


def test_convert_parses_fenced_json_without_a_model_call() -> None:
    llm = FakeLLM(responses=[])
    node = ConvertNode(id="t.convert", task_name="post", source_node="t.agent", model=Post)
    result = run_node(node, upstream={"t.agent": out('Here:\n```json\n{"title": "Hi", "words": 3}\n```')}, llm=llm)
    assert result.output.pydantic == Post(title="Hi", words=3)
    assert result.output.output_format == OutputFormat.PYDANTIC
    assert llm.calls == []


def test_convert_asks_the_model_when_text_is_not_json() -> None:
    llm = FakeLLM(responses=[Post(title="Hello", words=2)])
    node = ConvertNode(id="t.convert", task_name="post", source_node="t.agent", model=Post, as_json=True)
    result = run_node(node, upstream={"t.agent": out("The title is Hello and it has two words")}, llm=llm)
    assert result.output.json_dict == {"title": "Hello", "words": 2}
    assert llm.calls[0].response_model is Post
