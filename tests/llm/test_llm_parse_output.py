"""parse_model_output: the repairs text-only models need, and clear failures."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from crewgraph.errors import StructuredOutputError
from crewgraph.llm import parse_model_output


class Report(BaseModel):
    title: str
    score: int = 0
    tags: list[str] = []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"title": "a", "score": 2}', Report(title="a", score=2)),
        ('```json\n{"title": "a", "score": 2}\n```', Report(title="a", score=2)),
        ('```\n{"title": "a"}\n```', Report(title="a")),
        ('Here is the report:\n{"title": "a", "score": 2}\nLet me know!', Report(title="a", score=2)),
        ('Thoughts {not json} then {"title": "a"} done', Report(title="a")),
        ('{"title": "a", "tags": ["x", "y",],}', Report(title="a", tags=["x", "y"])),
        ('{"title": "a", "score": 3, "tags": ["x", "y', Report(title="a", score=3, tags=["x", "y"])),
        ('{"title": "a", "score": 3, "ta', Report(title="a", score=3)),
        ('{"title": "a", "score": 3,', Report(title="a", score=3)),
        ('Sure! ```json\n{"title": "trunc', Report(title="trunc")),
    ],
)
def test_repairs(text: str, expected: Report) -> None:
    assert parse_model_output(text, Report) == expected


def test_no_json_names_the_model() -> None:
    with pytest.raises(StructuredOutputError, match=r"Report.*no JSON found"):
        parse_model_output("I cannot do that.", Report)


def test_empty_output() -> None:
    with pytest.raises(StructuredOutputError, match=r"Report.*no text"):
        parse_model_output("  ", Report)
    with pytest.raises(StructuredOutputError):
        parse_model_output(None, Report)


def test_validation_problem_is_reported() -> None:
    with pytest.raises(StructuredOutputError) as info:
        parse_model_output('{"score": "high"}', Report)
    message = str(info.value)
    assert "Report" in message
    assert "title" in message and "score" in message
