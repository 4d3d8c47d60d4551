"""The Patronus tools against a local stand-in speaking Patronus' /v1 evaluation API, and a local evaluator client."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import (
    PatronusEvalTool,
    PatronusLocalEvaluatorTool,
    PatronusPredefinedCriteriaEvalTool,
)
from crewgraph.tools import ToolFailure

EVALUATORS = {"evaluators": [
    {"id": "judge", "name": "Judge", "description": "LLM judge", "aliases": ["judge-large"], "deprecated": False},
    {"id": "old", "name": "Old", "description": "", "aliases": [], "deprecated": True},
]}
CRITERIA = {"evaluator_criteria": [
    {"evaluator_family": "Judge", "name": "patronus:is-code", "description": "", "config": {"pass_criteria": "Is code"}},
    {"evaluator_family": "Judge", "name": "patronus:polite", "description": "Polite tone", "config": {}},
    {"evaluator_family": "Judge", "name": "nothing", "description": "", "config": {}},
]}
RESULT = {"results": [{"evaluator_id": "judge", "criteria": "patronus:is-code", "status": "success",
                       "evaluation_result": {"pass": True, "score_raw": 1.0}}]}


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-api-key") != "pt-key":
            return 401, {"detail": "Invalid API key"}
        return reply
    return handler


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"GET /v1/evaluators": _auth(EVALUATORS), "GET /v1/evaluator-criteria": _auth(CRITERIA),
                          "POST /v1/evaluate": _auth(RESULT)}) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("PATRONUS_API_KEY", "pt-key")
    monkeypatch.setenv("PATRONUS_BASE_URL", api.url)


def test_eval_tool_offers_the_accounts_criteria_and_evaluates(api: FakeHTTPService) -> None:
    with pytest.warns(UserWarning, match="choose the evaluator"):
        tool = PatronusEvalTool()
    assert [e["id"] for e in tool.evaluators] == ["judge"]
    assert [c["name"] for c in tool.criteria] == ["patronus:is-code", "patronus:polite"]
    assert '"pass_criteria": "Is code"' in tool.description
    result = tool.run(evaluated_model_input="Write code", evaluated_model_output="print(1)",
                      evaluated_model_retrieved_context="", evaluators=[{"evaluator": "Judge", "criteria": "patronus:is-code"}])
    assert result == RESULT
    assert api.requests_to("/v1/evaluate")[-1].json == {
        "evaluated_model_input": "Write code", "evaluated_model_output": "print(1)",
        "evaluated_model_retrieved_context": "", "evaluators": [{"evaluator": "judge", "criteria": "patronus:is-code"}]}


def test_predefined_criteria(api: FakeHTTPService) -> None:
    fixed = [{"evaluator": "judge", "criteria": "patronus:polite"}]
    tool = PatronusPredefinedCriteriaEvalTool(evaluators=fixed)
    assert "patronus:polite" in tool.description
    tool.run(evaluated_model_input={"description": "Greet"}, evaluated_model_output={"description": "Hello!"},
             evaluated_model_retrieved_context={"description": ""}, evaluated_model_gold_answer={"description": "Hi"},
             evaluators=[{"evaluator": "ignored", "criteria": "x"}])
    sent = api.requests_to("/v1/evaluate")[-1].json
    assert sent["evaluators"] == fixed and sent["evaluated_model_output"] == "Hello!"


def test_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PATRONUS_API_KEY")
    with pytest.warns(UserWarning):
        tool = PatronusEvalTool()
    assert "PATRONUS_API_KEY" in tool.config_problems()[0] and tool.criteria == []
    failed = PatronusPredefinedCriteriaEvalTool(evaluators=[]).run(
        evaluated_model_input={}, evaluated_model_output={}, evaluated_model_retrieved_context={},
        evaluated_model_gold_answer={}, evaluators=[])
    assert isinstance(failed, ToolFailure) and failed.code == "missing_api_key"


@dataclass
class _Result:
    pass_: bool
    explanation: str


class _LocalClient:
    """The part of patronus.Client the tool uses: evaluate() with a registered function evaluator."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def evaluate(self, **kwargs: Any) -> _Result:
        self.calls.append(kwargs)
        return _Result(kwargs["evaluated_model_output"] == kwargs["evaluated_model_gold_answer"], "exact match check")


def test_local_evaluator_uses_the_client() -> None:
    client = _LocalClient()
    tool = PatronusLocalEvaluatorTool(patronus_client=client, evaluator="exact-match", evaluated_model_gold_answer="4")
    out = tool.run(evaluated_model_input="2+2", evaluated_model_output="4", evaluated_model_retrieved_context="",
                   evaluated_model_gold_answer="ignored", evaluator="ignored")
    assert out == "Evaluation result: True, Explanation: exact match check"
    assert client.calls[-1]["evaluator"] == "exact-match" and client.calls[-1]["tags"] == {}
    assert "client" in PatronusLocalEvaluatorTool().config_problems()[0]
