"""Task: what to do, what a good answer looks like, who does it and what it needs."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import UUID4, BaseModel, ConfigDict, Field, field_validator, model_validator

from crewgraph._internal.interpolate import placeholder_names
from crewgraph.outputs import TaskOutput
from crewgraph.spec._validators import check_guardrail, check_policy, check_tools, merge_config
from crewgraph.spec.agent import Agent

__all__ = ["Task"]


class Task(BaseModel):
    """One unit of work. Field names and defaults follow CrewAI.

    ``context=None`` (the default, "not specified") means: in a sequential crew,
    see the previous tasks' outputs; ``context=[]`` means see nothing.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid", defer_build=True)

    id: UUID4 = Field(default_factory=uuid.uuid4, frozen=True)
    name: str | None = None
    description: str = Field(min_length=1)
    expected_output: str = Field(min_length=1)
    agent: Agent | None = None
    context: list[Task] | None = None
    async_execution: bool = False
    output_json: type[BaseModel] | None = None
    output_pydantic: type[BaseModel] | None = None
    response_model: type[BaseModel] | None = None
    tools: list[Any] = Field(default_factory=list)
    output_file: str | None = None
    create_directory: bool = True
    human_input: bool = False
    markdown: bool = False
    guardrail: Any = None
    guardrails: list[Any] | None = None
    guardrail_max_retries: int = Field(default=3, ge=0)
    callback: Callable[..., Any] | None = None
    tool_failure_policy: Any = None
    output: TaskOutput | None = Field(
        default=None, description="The task's latest result, set when a run of it finishes (as in CrewAI)"
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_config(cls, data: Any) -> Any:
        return merge_config(data, "Task")

    _validate_tools = field_validator("tools", mode="before")(classmethod(lambda cls, v: check_tools(v)))

    @field_validator("guardrail", mode="before")
    @classmethod
    def _validate_guardrail(cls, v: Any) -> Any:
        return check_guardrail(v)

    @field_validator("guardrails", mode="before")
    @classmethod
    def _validate_guardrails(cls, v: Any) -> Any:
        if v is None:
            return None
        items = v if isinstance(v, list | tuple) else [v]
        return [check_guardrail(g) for g in items]

    _validate_policy = field_validator("tool_failure_policy", mode="before")(
        classmethod(lambda cls, v: check_policy(v))
    )

    @field_validator("output_file")
    @classmethod
    def _validate_output_file(cls, v: str | None) -> str | None:
        if v is not None and (not v.strip() or v.endswith(("/", "\\"))):
            raise ValueError("output_file must name a file, not a folder")
        return v

    @model_validator(mode="after")
    def _one_output_format(self) -> Task:
        if self.output_json is not None and self.output_pydantic is not None:
            raise ValueError("set only one of output_json and output_pydantic")
        return self

    def record_output(self, output: TaskOutput) -> None:
        """Keep the latest result in ``output`` (no re-validation of the whole task)."""
        object.__setattr__(self, "output", output)
        self.__pydantic_fields_set__.add("output")

    # --- helpers used by the compiler ----------------------------------------
    @property
    def all_guardrails(self) -> list[Any]:
        out: list[Any] = []
        if self.guardrail is not None:
            out.append(self.guardrail)
        out.extend(self.guardrails or [])
        return out

    @property
    def structured_model(self) -> type[BaseModel] | None:
        return self.output_pydantic or self.output_json or self.response_model

    def placeholders(self) -> set[str]:
        """Names of ``{placeholders}`` in the description, expected output and output file."""
        found: set[str] = set()
        for text in (self.description, self.expected_output, self.output_file or ""):
            found.update(placeholder_names(text))
        return found

    def display_name(self) -> str:
        if self.name:
            return self.name
        text = " ".join(self.description.split())
        return text if len(text) <= 50 else text[:47] + "..."

    def output_path(self, inputs: dict[str, Any]) -> Path | None:
        if not self.output_file:
            return None
        from crewgraph._internal.interpolate import interpolate

        return Path(interpolate(self.output_file, inputs))

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Task) and other.id == self.id

    def __repr__(self) -> str:
        return f"Task(name={self.display_name()!r})"
