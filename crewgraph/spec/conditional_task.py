"""ConditionalTask: a task that runs only when ``condition(previous task's output)`` is true.

CrewAI's semantics: the condition sees the output of the task just before it;
when it is false the task is skipped and its output is an empty one (``raw``
is ``""``), which later tasks see as its result. A crew may not start with a
conditional task, a conditional task may not be async, and a crew needs at
least one task that is not conditional (checked when the crew is built).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import Field, field_serializer, field_validator

from crewgraph.outputs import OutputFormat, TaskOutput
from crewgraph.spec._dump import named_for_json
from crewgraph.spec.task import Task

__all__ = ["ConditionalTask"]


class ConditionalTask(Task):
    """A task skipped when ``condition(previous_output)`` is false (CrewAI's ConditionalTask)."""

    condition: Callable[[TaskOutput], bool] | None = Field(
        default=None, description="Called with the previous task's output; false skips this task (required to run)"
    )

    @field_validator("condition", mode="before")
    @classmethod
    def _one_argument(cls, v: Any) -> Any:
        if v is None:
            return v
        if not callable(v):
            raise ValueError(f"condition must be a function of the previous TaskOutput, got {type(v).__name__}")
        try:
            params = [
                p for p in inspect.signature(v).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            ]
        except (TypeError, ValueError):
            return v
        if len(params) != 1:
            raise ValueError(
                f"condition {getattr(v, '__name__', v)!r} must take exactly one argument (the previous "
                f"task's TaskOutput); it requires {len(params)}"
            )
        return v

    @field_serializer("condition", when_used="json")
    def _name_condition(self, value: Any) -> Any:
        return named_for_json(value, f"ConditionalTask {self.display_name()!r}")

    def should_execute(self, context: TaskOutput) -> bool:
        """Whether this task runs after ``context`` (the previous task's output)."""
        if self.condition is None:
            raise ValueError(f"ConditionalTask {self.display_name()!r} has no condition function set")
        return bool(self.condition(context))

    def get_skipped_task_output(self) -> TaskOutput:
        """The output a skipped run reports: empty ``raw``, as in CrewAI."""
        return TaskOutput(
            description=self.description,
            name=self.name,
            expected_output=self.expected_output,
            raw="",
            agent=self.agent.role if self.agent is not None else "",
            output_format=OutputFormat.RAW,
        )
