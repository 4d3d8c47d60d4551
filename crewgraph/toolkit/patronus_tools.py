"""The Patronus tools: judge an agent's input, output and context with Patronus evaluators.

* ``PatronusEvalTool`` lets the model pick the evaluator and criterion: on
  construction (when the key is there) it lists them with ``GET
  {base}/v1/evaluators`` and ``GET {base}/v1/evaluator-criteria`` and writes
  them into its description; a call is ``POST {base}/v1/evaluate``.
* ``PatronusPredefinedCriteriaEvalTool`` evaluates with the ``evaluators``
  fixed when it was built.
* ``PatronusLocalEvaluatorTool`` runs an evaluator registered on a Patronus
  client you pass (``client=`` or ``patronus_client=``; its
  ``evaluate(...)`` is called), as CrewAI's does.

Requests carry ``X-API-KEY`` (``PATRONUS_API_KEY``); the reply of
``/v1/evaluate`` is handed back as a dict. ``base_url=`` or
``PATRONUS_BASE_URL`` moves the API (default ``https://api.patronus.ai``);
``evaluate_url=`` replaces the evaluate endpoint as in CrewAI.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "PatronusEvalTool",
    "PatronusEvalToolSchema",
    "PatronusLocalEvaluatorTool",
    "PatronusPredefinedCriteriaEvalTool",
]


class PatronusEvalToolSchema(BaseModel):
    """Input for PatronusEvalTool."""

    evaluated_model_input: str | None = Field(..., description="The agent's task description in simple text")
    evaluated_model_output: str | None = Field(..., description="The agent's output of the task")
    evaluated_model_retrieved_context: str | None = Field(..., description="The agent's context")
    evaluators: list[dict[str, str]] = Field(
        ..., description='Evaluators and criteria, e.g. [{"evaluator": "Judge", "criteria": "patronus:is-code"}]'
    )


class FixedBaseToolSchema(BaseModel):
    """Input for PatronusPredefinedCriteriaEvalTool."""

    evaluated_model_input: dict[str, Any] = Field(..., description="The agent's task description in simple text")
    evaluated_model_output: dict[str, Any] = Field(..., description="The agent's output of the task")
    evaluated_model_retrieved_context: dict[str, Any] = Field(..., description="The agent's context")
    evaluated_model_gold_answer: dict[str, Any] = Field(..., description="The agent's gold answer only if available")
    evaluators: list[dict[str, str]] = Field(
        ..., description="Evaluators and criteria, e.g. [{'evaluator': '...', 'criteria': '...'}]"
    )


class FixedLocalEvaluatorToolSchema(BaseModel):
    """Input for PatronusLocalEvaluatorTool."""

    evaluated_model_input: str = Field(..., description="The agent's task description in simple text")
    evaluated_model_output: str = Field(..., description="The agent's output of the task")
    evaluated_model_retrieved_context: str = Field(..., description="The agent's context")
    evaluated_model_gold_answer: str = Field(..., description="The agent's gold answer only if available")
    evaluator: str = Field(..., description="The registered local evaluator")


def _text(value: Any) -> Any:
    """CrewAI's tools accept a string or a ``{"description": ...}`` object for each evaluated field."""
    return value.get("description") if isinstance(value, dict) else value


class _PatronusTool(HostedTool):
    evaluate_url: str | None = Field(default=None, description="Full evaluate endpoint URL (overrides base_url)")

    _service: ClassVar[str] = "Patronus"
    _key_envs: ClassVar[tuple[str, ...]] = ("PATRONUS_API_KEY",)
    _base_env: ClassVar[str | None] = "PATRONUS_BASE_URL"
    _default_base: ClassVar[str] = "https://api.patronus.ai"

    def _evaluate(self, body: dict[str, Any]) -> Any:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        return self._call("POST", "/v1/evaluate", url=self.evaluate_url, headers={"X-API-KEY": key}, json_body=body)


class PatronusEvalTool(_PatronusTool):
    """The model chooses an evaluator and criterion from the ones the account has (listed in the description)."""

    name: str = "Patronus Evaluation Tool"
    description: str = "This tool calls the Patronus Evaluation API to evaluate an agent's input and output."
    args_schema: type[BaseModel] = PatronusEvalToolSchema
    evaluators: list[dict[str, Any]] = Field(default_factory=list, description="Evaluators offered (fetched)")
    criteria: list[dict[str, Any]] = Field(default_factory=list, description="Criteria offered (fetched)")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        warnings.warn(
            "PatronusEvalTool lets the agent choose the evaluator and criteria; use "
            "PatronusPredefinedCriteriaEvalTool to fix them.",
            UserWarning,
            stacklevel=3,
        )
        if not self.criteria and self.resolved_key():
            self.load_criteria()
        self._describe()

    def load_criteria(self) -> ToolFailure | None:
        """Fetch the account's evaluators and criteria (a failure is returned, and the description stays generic)."""
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"X-API-KEY": key}
        evaluators = self._call("GET", "/v1/evaluators", headers=headers)
        criteria = self._call("GET", "/v1/evaluator-criteria", headers=headers)
        if isinstance(evaluators, ToolFailure):
            return evaluators
        if isinstance(criteria, ToolFailure):
            return criteria
        seen: set[str] = set()
        self.evaluators = []
        for ev in evaluators.get("evaluators", []):
            if not ev.get("deprecated") and ev.get("id") not in seen:
                seen.add(ev.get("id"))
                self.evaluators.append({k: ev.get(k) for k in ("id", "name", "description", "aliases")})
        self.criteria = []
        for cr in criteria.get("evaluator_criteria", []):
            config = cr.get("config") or {}
            entry = {"evaluator": cr.get("evaluator_family"), "name": cr.get("name")}
            if config.get("pass_criteria"):
                entry["pass_criteria"] = config["pass_criteria"]
                if config.get("rubric"):
                    entry["rubric"] = config["rubric"]
            elif cr.get("description"):
                entry["description"] = cr["description"]
            else:
                continue
            self.criteria.append(entry)
        self._describe()
        return None

    def _describe(self) -> None:
        if not self.criteria:
            return
        listing = "\n".join(json.dumps(c) for c in self.criteria)
        self.description = (
            "This tool calls the Patronus Evaluation API with: evaluated_model_input (the agent's task), "
            "evaluated_model_output (its output), evaluated_model_retrieved_context (its context) and evaluators, "
            'a list like [{"evaluator": "Judge", "criteria": "patronus:is-code"}].\n\nEvaluators:\n'
            f"{listing}\n\nChoose ONLY the most appropriate evaluator and criteria from these, by their "
            '"pass_criteria" or "description".'
        )

    def _run(
        self,
        evaluated_model_input: str | None,
        evaluated_model_output: str | None,
        evaluated_model_retrieved_context: str | None,
        evaluators: list[dict[str, str]],
    ) -> Any:
        chosen = []
        for ev in evaluators:
            if "evaluator" not in ev or not ({"name", "criteria"} & ev.keys()):
                return ToolFailure(message=f"Each evaluator needs 'evaluator' and 'criteria': got {ev}", code="invalid_evaluator")
            chosen.append({"evaluator": ev["evaluator"].lower(), "criteria": ev.get("name") or ev["criteria"]})
        return self._evaluate({
            "evaluated_model_input": evaluated_model_input,
            "evaluated_model_output": evaluated_model_output,
            "evaluated_model_retrieved_context": evaluated_model_retrieved_context,
            "evaluators": chosen,
        })


class PatronusPredefinedCriteriaEvalTool(_PatronusTool):
    """Evaluates with the evaluators and criteria fixed at construction."""

    name: str = "Call Patronus API tool for evaluation of model inputs and outputs"
    description: str = "This tool calls the Patronus Evaluation API that takes the following arguments:"
    args_schema: type[BaseModel] = FixedBaseToolSchema
    evaluators: list[dict[str, str]] = Field(default_factory=list, description="The evaluators and criteria used")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.evaluators and "description" not in self.model_fields_set:
            self.description = (
                "This tool calls the Patronus Evaluation API with the agent's input, output, context and gold "
                f"answer; it evaluates with evaluators={self.evaluators}"
            )

    def _run(
        self,
        evaluated_model_input: Any,
        evaluated_model_output: Any,
        evaluated_model_retrieved_context: Any,
        evaluated_model_gold_answer: Any,
        evaluators: Any = None,
    ) -> Any:
        return self._evaluate({
            "evaluated_model_input": _text(evaluated_model_input),
            "evaluated_model_output": _text(evaluated_model_output),
            "evaluated_model_retrieved_context": _text(evaluated_model_retrieved_context),
            "evaluated_model_gold_answer": _text(evaluated_model_gold_answer),
            "evaluators": self.evaluators or evaluators,
        })


class PatronusLocalEvaluatorTool(BaseTool):
    """Runs an evaluator registered on your Patronus client and reports pass/fail with the explanation."""

    name: str = "Patronus Local Evaluator Tool"
    description: str = "This tool is used to evaluate the model input and output using custom function evaluators."
    args_schema: type[BaseModel] = FixedLocalEvaluatorToolSchema
    client: Any = Field(default=None, description="A patronus Client with the evaluator registered")
    evaluator: str = Field(default="", description="The registered evaluator used (fixed)")
    evaluated_model_gold_answer: str = Field(default="", description="The gold answer used (fixed)")

    @model_validator(mode="before")
    @classmethod
    def _client_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "patronus_client" in data:
            data = dict(data)
            data["client"] = data.pop("patronus_client")
        return data

    def config_problems(self) -> list[str]:
        if self.client is None or not callable(getattr(self.client, "evaluate", None)):
            return ["PatronusLocalEvaluatorTool needs a patronus client (client=patronus.Client(...)) with the "
                    "evaluator registered"]
        return []

    def _run(
        self,
        evaluated_model_input: str,
        evaluated_model_output: str,
        evaluated_model_retrieved_context: str,
        evaluated_model_gold_answer: str = "",
        evaluator: str = "",
    ) -> str | ToolFailure:
        problems = self.config_problems()
        if problems:
            return ToolFailure(message=problems[0], code="missing_client")
        result = self.client.evaluate(
            evaluator=self.evaluator or evaluator,
            evaluated_model_input=evaluated_model_input,
            evaluated_model_output=evaluated_model_output,
            evaluated_model_retrieved_context=evaluated_model_retrieved_context,
            evaluated_model_gold_answer=self.evaluated_model_gold_answer or evaluated_model_gold_answer,
            tags={},
        )
        return f"Evaluation result: {result.pass_}, Explanation: {result.explanation}"
