"""The judge call every evaluator makes: criteria in, one structured verdict out.

The verdict is asked for as a ``response_model`` (:class:`Verdict`) through the engine's one way
into a model (``llm.front_door.invoke``), so the judge may be any ``BaseLLM`` (crewgraph's
``LLM``, ``FakeLLM``, a subclass overriding only ``call()``); a model that
only answers in text is parsed and repaired like any structured reply. A reply that is no
verdict at all becomes a score of None whose feedback says so (CrewAI's evaluators do the same:
one bad judgement must not lose the other metrics).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from crewgraph.experimental.evaluation.base_evaluator import EvaluationScore

__all__ = ["Verdict", "judge", "judge_llm"]


class Verdict(BaseModel):
    """What the judge returns: a score per criterion, their overall score and the reasons."""

    scores: dict[str, float] = Field(default_factory=dict, description="Each criterion's score from 0 to 10")
    overall_score: float = Field(description="The overall score from 0 to 10 (the average of the criteria)")
    feedback: str = Field(default="", description="The reasons for the scores")
    improvement_suggestions: str | None = Field(default=None, description="Concrete ways to do better")


def judge_llm(llm: Any) -> Any:
    """A ``BaseLLM`` for an evaluator: ``llm`` itself, an ``LLM`` of a model name, or the default model."""
    from crewgraph.llm.base import BaseLLM

    if isinstance(llm, BaseLLM):
        return llm
    if llm is None:
        from crewgraph.llm.settings import default_llm

        return default_llm()
    if isinstance(llm, str) and llm.strip():
        from crewgraph.llm import LLM

        return LLM(model=llm)
    raise TypeError(f"an evaluator's llm must be a model name or a BaseLLM, got {type(llm).__name__}")


def judge(llm: Any, system: str, prompt: str, *, title: str, criteria: dict[str, str]) -> EvaluationScore:
    """Ask ``llm`` for a :class:`Verdict` on ``criteria`` (name -> what it rates) and turn it
    into an :class:`EvaluationScore` whose feedback lists each criterion's score under ``title``."""
    from crewgraph._internal.sync import run_sync
    from crewgraph.llm.front_door import invoke

    wanted = ", ".join(f'"{name}"' for name in criteria)
    system = (f"{system}\n\nRate each criterion from 0 to 10: {wanted}. Reply with JSON: scores (criterion -> "
              "number), overall_score (their average), feedback, improvement_suggestions.")
    messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    from crewgraph.errors import StructuredOutputError

    raw_text: str | None = None
    try:
        reply = run_sync(invoke(llm, messages, response_model=Verdict))
        raw = getattr(reply, "content", None)
        raw_text = raw if isinstance(raw, str) and raw else None
        verdict = _verdict(reply)
    except (ValueError, StructuredOutputError) as exc:
        return EvaluationScore(score=None, feedback=f"{title}: the judge's reply is no verdict ({exc})",
                               raw_response=raw_text)
    lines = [f"{title}:"]
    for name, meaning in criteria.items():
        lines.append(f"• {name.replace('_', ' ').title()}: {verdict.scores.get(name, 'n/a')}/10 - {meaning}")
    if verdict.improvement_suggestions:
        lines.append(f"Improvement Suggestions:\n{verdict.improvement_suggestions}")
    elif verdict.feedback:
        lines.append(verdict.feedback)
    score = min(10.0, max(0.0, float(verdict.overall_score)))
    return EvaluationScore(score=score, feedback="\n".join(lines),
                           raw_response=raw_text or verdict.model_dump_json())


def _verdict(reply: Any) -> Verdict:
    parsed = getattr(reply, "parsed", None)
    if isinstance(parsed, Verdict):
        return parsed
    if isinstance(parsed, BaseModel):
        return Verdict.model_validate(parsed.model_dump())
    from crewgraph.llm.structured import parse_model_output

    try:
        return parse_model_output(getattr(reply, "content", None) or str(reply or ""), Verdict)
    except Exception as exc:
        raise ValueError(str(exc)[:200]) from exc
