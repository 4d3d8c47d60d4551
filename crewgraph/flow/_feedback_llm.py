"""Collapse a person's free-text feedback into one of ``@human_feedback``'s outcomes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import create_model

__all__ = ["classify"]


def classify(feedback: str, outcomes: tuple[str, ...], llm: Any, default: str | None, method: str) -> str:
    """An exact (case-insensitive) match needs no model; empty feedback is ``default``;
    anything else is asked of ``llm`` with structured output limited to ``outcomes``."""
    text = feedback.strip()
    for outcome in outcomes:
        if text.lower() == outcome.lower():
            return outcome
    if not text and default is not None:
        return default
    if llm is None:
        if default is not None:
            return default
        from crewgraph.flow.human_feedback import HumanFeedbackCollapseError

        raise HumanFeedbackCollapseError(f"@human_feedback on {method!r}: no llm= to classify the feedback {text!r}")
    if isinstance(llm, str):
        from crewgraph.llm import LLM

        llm = LLM(model=llm)
    choice: Any = Literal[outcomes]
    model = create_model("FeedbackOutcome", outcome=(choice, ...))
    messages = [
        {
            "role": "system",
            "content": "Classify a person's feedback on a piece of work into exactly one outcome. "
            f"Possible outcomes: {', '.join(outcomes)}.",
        },
        {"role": "user", "content": f"Feedback: {text}\n\nWhich outcome does it express?"},
    ]
    try:
        response = llm.call(messages, response_model=model)
        parsed = getattr(response, "parsed", None)
        chosen: Any = getattr(parsed, "outcome", None)
    except Exception:
        if default is not None:
            return default
        raise
    if chosen not in outcomes:
        if default is not None:
            return default
        from crewgraph.flow.human_feedback import HumanFeedbackCollapseError

        raise HumanFeedbackCollapseError(
            f"@human_feedback on {method!r}: the model chose {chosen!r}, not one of {list(outcomes)}")
    return str(chosen)
