"""What a run gives back: token usage, one task's output, a whole crew's output.

Field names follow CrewAI's (``raw``, ``pydantic``, ``json_dict``,
``tasks_output``, ``token_usage``) so ported code keeps working.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidatorFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_validator,
)

from crewgraph._internal.shared_prompt import CompactMessage, plain_messages
from crewgraph.usage_metrics import UsageMetrics

__all__ = [
    "CrewOutput",
    "LiteAgentOutput",
    "OutputFormat",
    "PendingCrewRun",
    "PendingTaskQuestion",
    "TaskOutput",
    "UsageMetrics",
]


class OutputFormat(str, Enum):
    """How a task's output is shaped."""

    RAW = "raw"
    JSON = "json"
    PYDANTIC = "pydantic"


class _Result(BaseModel):
    """What task and crew outputs share: the text, its structured forms, usage, failures."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    raw: str = ""
    pydantic: BaseModel | None = None
    json_dict: dict[str, Any] | None = None
    token_usage: UsageMetrics = Field(default_factory=UsageMetrics)

    @property
    def json(self) -> str | None:  # type: ignore[override]
        """The JSON text of the structured output, as CrewAI exposes it."""
        if self.json_dict is not None:
            import json  # not at import time: `from crewgraph import ...` stays within its budget

            return json.dumps(self.json_dict)
        if self.pydantic is not None:
            return self.pydantic.model_dump_json()
        return None

    def to_dict(self) -> dict[str, Any]:
        """The structured output as a dict (json_dict, else pydantic dumped), or {}."""
        if self.json_dict is not None:
            return dict(self.json_dict)
        if self.pydantic is not None:
            return self.pydantic.model_dump()
        return {}

    def __str__(self) -> str:
        if self.pydantic is not None:
            return str(self.pydantic)
        if self.json_dict is not None:
            return str(self.json_dict)
        return self.raw


class TaskOutput(_Result):
    """The result of one task."""

    description: str
    name: str | None = None
    expected_output: str | None = None
    summary: str | None = None
    agent: str = ""
    output_format: OutputFormat = OutputFormat.RAW
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tool_failures: list[Any] = Field(default_factory=list)
    """The tool failures of this task's work (``ToolFailureRecord``s), as CrewAI records them."""
    grounded: bool | None = None
    """Whether the answer rests on what the agent's tools returned: False when the agent called
    tools and every call failed or returned nothing usable (the answer can only be the model's
    own invention), True when at least one call gave a result, None when no tool was called.
    crewgraph's addition to CrewAI's TaskOutput: check it before trusting ``raw``."""
    warnings: list[str] = Field(default_factory=list)
    """What went wrong without failing the task (a tool that failed on every call...): the same
    text as the warning on the executed graph and in the run summary."""

    @property
    def has_tool_failures(self) -> bool:
        """True when a tool failed during the work (check before trusting ``raw``)."""
        return bool(self.tool_failures)

    @field_validator("messages", mode="wrap")
    @classmethod
    def _keep_shared_prompts(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        """An agent step's messages keep their prompt as a ref to the run's shared context
        (``crewgraph._internal.shared_prompt``): validating would copy each text out whole."""
        if type(value) is list and any(type(m) is CompactMessage for m in value):
            return handler(plain_messages(value)) if not all(isinstance(m, dict) for m in value) else list(value)
        return handler(value)

    @field_serializer("messages")
    def _dump_messages(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return plain_messages(value)

    @model_validator(mode="after")
    def set_summary(self) -> Self:
        """CrewAI's validator: ``summary`` is the description's first ten words and ``...``
        (whatever was given, as CrewAI's; rerun on assignment when validated)."""
        excerpt = " ".join(self.description.split(" ")[:10])
        self.summary = f"{excerpt}..."
        return self


class CrewOutput(_Result):
    """The result of a crew kickoff: the last task's output plus every task's."""

    tasks_output: list[TaskOutput] = Field(default_factory=list)
    run_id: str | None = None
    graph: Any = Field(default=None, exclude=True, repr=False)
    """The executed run graph (a ``crewgraph.graph.RunGraph``) when available."""

    def __getitem__(self, key: str) -> Any:
        if self.pydantic is not None and hasattr(self.pydantic, key):
            return getattr(self.pydantic, key)
        if self.json_dict is not None and key in self.json_dict:
            return self.json_dict[key]
        raise KeyError(f"Key '{key}' not found in CrewOutput.")

    @property
    def tool_failures(self) -> list[Any]:
        """Every tool failure of the run's tasks, in task order (CrewAI's property): a crew can
        finish with some -- agents narrate a failed step and carry on."""
        return [failure for task in self.tasks_output for failure in task.tool_failures]

    @property
    def has_tool_failures(self) -> bool:
        """True when a tool failed in any task (check before trusting ``raw``)."""
        return any(task.tool_failures for task in self.tasks_output)

    @property
    def pending(self) -> bool:
        """False: the crew finished. A paused run returns a :class:`PendingCrewRun` instead."""
        return False

    @property
    def usage_metrics(self) -> UsageMetrics:
        """CrewAI's name for the run's ``token_usage``."""
        return self.token_usage


class PendingTaskQuestion(BaseModel):
    """One review a paused crew waits for: ``task``'s ``draft`` answer, shown with ``question``.
    ``key`` identifies it within the run (``<step node id>#<n>``: the n-th review of that step)."""

    model_config = ConfigDict(defer_build=True)

    task: str
    agent: str = ""
    question: str
    draft: str = ""
    key: str


class PendingCrewRun(CrewOutput):
    """What ``kickoff`` returns when a ``human_input`` task paused the crew for a person's
    review (a persisted input provider with checkpointing on). ``crew.resume(run_id,
    answer)`` (or ``crewgraph checkpoints resume RUN --answer TEXT``) continues it; an empty
    answer accepts the draft. ``tasks_output`` holds the tasks completed so far; ``raw``
    is empty: the crew has no final answer yet."""

    crew_name: str = "crew"
    questions: list[PendingTaskQuestion] = Field(default_factory=list)

    @property
    def pending(self) -> bool:
        return True

    @property
    def question(self) -> str:
        return self.questions[0].question if self.questions else ""

    def __str__(self) -> str:
        asked = "; ".join(f"task {q.task!r}" for q in self.questions)
        return f"crew {self.crew_name!r} run {self.run_id} is paused, waiting for a human review ({asked})"


class LiteAgentOutput(BaseModel):
    """What ``Agent.kickoff`` (an agent working without a crew) returns. Fields follow CrewAI's."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    raw: str = ""
    pydantic: BaseModel | None = None
    agent_role: str = ""
    usage_metrics: dict[str, Any] | None = None
    """Token usage of the run (``UsageMetrics`` fields), as CrewAI reports it."""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    """The conversation the agent had: system prompt, the messages given, its turns and tool results."""
    tool_failures: list[Any] = Field(default_factory=list)

    @property
    def has_tool_failures(self) -> bool:
        return bool(self.tool_failures)

    def to_dict(self) -> dict[str, Any]:
        """The structured answer as a dict ({} when there is none)."""
        return self.pydantic.model_dump() if self.pydantic is not None else {}

    def __str__(self) -> str:
        return str(self.pydantic) if self.pydantic is not None else self.raw
