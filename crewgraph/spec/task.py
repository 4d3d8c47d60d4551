"""Task: what to do, what a good answer looks like, who does it and what it needs."""

# No `from __future__ import annotations` here: pydantic evaluates string annotations with
# compile()+eval() per field at class creation, about half of this module's import cost
# (issue 18's import budget). Names only known to type checkers are quoted instead.

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    UUID4,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from crewgraph.security.fingerprint import Fingerprint
from crewgraph.security.security_config import SecurityConfig, SecurityConfigField
from crewgraph.spec._dump import JSON_CLASS_NAME, JSON_NAMED, JSON_TOOLS
from crewgraph.spec._task_api import TaskAPI
from crewgraph.spec._task_run_stats import TaskRunStats
from crewgraph.spec._unsupported import reject_unsupported
from crewgraph.spec._validators import (
    agent_from_dump,
    check_guardrail,
    check_input_files,
    check_output_file,
    check_policy,
    check_tools,
    merge_config,
)
from crewgraph.spec.base_agent import BaseAgent

if TYPE_CHECKING:
    from concurrent.futures import Future

    from crewgraph.outputs import TaskOutput

__all__ = ["Task"]


class Task(TaskAPI, TaskRunStats, BaseModel):  # type: ignore[misc]  # TaskAPI.copy is CrewAI's, not pydantic's
    """One unit of work. Field names and defaults follow CrewAI.

    ``context=None`` (the default, "not specified") means: in a sequential crew,
    see the previous tasks' outputs; ``context=[]`` means see nothing.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True, extra="forbid", defer_build=True)

    id: UUID4 = Field(default_factory=uuid.uuid4, frozen=True)
    name: str | None = None
    description: str = Field(min_length=1)
    expected_output: str = Field(min_length=1)
    agent: BaseAgent | None = None
    context: "list[Task] | None" = None
    async_execution: bool = False
    output_json: Annotated[type[BaseModel] | None, JSON_CLASS_NAME] = None
    output_pydantic: Annotated[type[BaseModel] | None, JSON_CLASS_NAME] = None
    response_model: Annotated[type[BaseModel] | None, JSON_CLASS_NAME] = None
    tools: Annotated[list[Any], JSON_TOOLS] = Field(default_factory=list)
    output_file: str | None = None
    create_directory: bool = True
    human_input: bool = False
    markdown: bool = False
    guardrail: Annotated[Any, JSON_NAMED] = None
    guardrails: Annotated[list[Any] | None, JSON_NAMED] = None
    guardrail_max_retries: int = Field(default=3, ge=0)
    callback: Annotated[Callable[..., Any] | None, JSON_NAMED] = None
    tool_failure_policy: Any = None
    security_config: SecurityConfigField = Field(
        default_factory=SecurityConfig, description="Security settings: the fingerprint that identifies it"
    )
    resources: dict[str, float] | None = Field(
        default=None,
        description="What the task's agent step needs where it runs on Ray ({'GPU': 1}); unused locally",
    )
    _tools_from_agent: bool = PrivateAttr(default=False)
    _output: "TaskOutput | None" = PrivateAttr(default=None)
    _run_stats: dict[str, Any] | None = PrivateAttr(default=None)
    _originals: tuple[str, str, str | None] | None = PrivateAttr(default=None)
    """Description, expected output and output file as first written, before
    ``interpolate_inputs_and_add_conversation_history`` filled them."""
    input_files: dict[str, Any] = Field(
        default_factory=dict,
        description="Files for this task by name: a path or an image URL; {name} in the description names it",
    )
    config: dict[str, Any] | None = Field(
        default=None, description="A YAML entry's fields (explicit keywords win over it); kept as given"
    )
    max_retries: int | None = Field(
        default=None, description="Deprecated (as in CrewAI): CrewAI's old name for guardrail_max_retries"
    )

    @model_validator(mode="before")
    @classmethod
    def _merge_config(cls, data: Any) -> Any:
        config = data.get("config") if isinstance(data, dict) else None
        data = reject_unsupported(merge_config(data, "Task"), "Task", cls.model_fields)
        if isinstance(data, dict) and config is not None:
            data["config"] = config
        if isinstance(data, dict) and data.get("max_retries") is not None:
            import warnings

            warnings.warn(
                "Task(max_retries=...) is deprecated (as in CrewAI): use guardrail_max_retries",
                DeprecationWarning,
                stacklevel=4,
            )
            data = dict(data)
            data.setdefault("guardrail_max_retries", data["max_retries"])
        return data

    @field_validator("resources", mode="before")
    @classmethod
    def _check_resources(cls, value: Any) -> Any:
        from crewgraph._internal.resources import check_resources

        return None if value is None else check_resources("Task.resources", value)

    _validate_input_files = field_validator("input_files", mode="before")(
        classmethod(lambda cls, v: check_input_files(v))
    )

    _validate_tools = field_validator("tools", mode="before")(classmethod(lambda cls, v: check_tools(v)))
    _agent_from_dump = field_validator("agent", mode="before")(classmethod(lambda cls, v: agent_from_dump(v)))

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
        return check_output_file(v)

    @model_validator(mode="after")
    def _one_output_format(self) -> "Task":
        if self.output_json is not None and self.output_pydantic is not None:
            raise ValueError("set only one of output_json and output_pydantic")
        return self

    @model_validator(mode="after")
    def _agent_tools_by_default(self) -> "Task":
        """A task that names no tools uses its agent's, as in CrewAI (``task.tools`` shows them)."""
        if not self.tools and self.agent is not None and self.agent.tools:
            self.__dict__["tools"] = list(self.agent.tools)  # no re-validation: they are the agent's, checked
            self._tools_from_agent = True
        return self

    @property
    def output(self) -> "TaskOutput | None":
        """The task's latest result, set when a run of it finishes (as in CrewAI); run state, so
        ``Task(output=...)`` is refused, but ``task.output = TaskOutput(...)`` works as in CrewAI."""
        return self._output

    @output.setter
    def output(self, value: "TaskOutput | None") -> None:
        from crewgraph.outputs import TaskOutput

        if value is not None and not isinstance(value, TaskOutput):
            raise TypeError(f"Task.output must be a TaskOutput or None, got {type(value).__name__}")
        self._output = value

    # --- running it alone (CrewAI's entry points; the runner does the work) ---------------
    def execute_sync(
        self, agent: BaseAgent | None = None, context: str | None = None, tools: list[Any] | None = None
    ) -> "TaskOutput":
        """Run this task on its own and return its output (also kept in ``task.output``).

        ``agent`` replaces the task's agent, ``context`` is extra text the agent works with,
        ``tools`` replace the task's tools. It runs as a one-task crew on the same compiled
        graph and scheduler as a crew's task (guardrails, structured output, output file).
        """
        from crewgraph._internal.sync import run_sync
        from crewgraph.runner.solo import run_task

        return run_sync(run_task(self, agent=agent, context=context, tools=tools))

    def execute_async(
        self, agent: BaseAgent | None = None, context: str | None = None, tools: list[Any] | None = None
    ) -> "Future[TaskOutput]":
        """:meth:`execute_sync` in a worker thread; returns a ``concurrent.futures.Future``, as CrewAI."""
        from concurrent.futures import Future
        from threading import Thread

        future: Future[TaskOutput] = Future()

        def work() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(self.execute_sync(agent=agent, context=context, tools=tools))
            except BaseException as exc:
                future.set_exception(exc)

        Thread(target=work, name=f"crewgraph-task-{self.display_name()[:20]}", daemon=True).start()
        return future

    def record_output(self, output: "TaskOutput") -> None:
        """Keep ``output`` as the task's latest result (``task.output``)."""
        self._output = output

    @property
    def fingerprint(self) -> Fingerprint:
        """The task's identity (``security_config.fingerprint``); events name it as their source."""
        return self.security_config.fingerprint

    @property
    def own_tools(self) -> list[Any]:
        """The tools this task names itself (not the ones it took from its agent)."""
        return [] if self._tools_from_agent else list(self.tools)

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
        """Names of ``{placeholders}`` in the description, expected output and output file that
        the kickoff inputs must provide (an input file's name is provided by the file)."""
        from crewgraph._internal.interpolate import placeholder_names

        found: set[str] = set()
        for text in (self.description, self.expected_output, self.output_file or ""):
            found.update(placeholder_names(text))
        return found - set(self.input_files)

    def display_name(self) -> str:
        if self.name:
            return self.name
        # Whitespace runs as one space, then at most 50 characters: a head of the description gives
        # the same name when it already has more than 50 (the joined words of a head are a prefix
        # of the whole's), without splitting a long description whole for each task's name.
        description = self.description
        head = description[:160]
        text = " ".join(head.split())
        if len(text) <= 50 and len(head) < len(description):
            text = " ".join(description.split())
        return text if len(text) <= 50 else text[:47] + "..."

    def output_path(self, inputs: dict[str, Any]) -> Path | None:
        if not self.output_file:
            return None
        from crewgraph._internal.interpolate import interpolate

        path = interpolate(self.output_file, inputs)
        if path != self.output_file:  # an input may carry what the definition could not
            try:
                check_output_file(path)
            except ValueError as exc:
                from crewgraph.errors import ConfigurationError

                raise ConfigurationError(
                    f"task {self.display_name()!r}: output_file {path!r} (filled from the inputs): {exc}"
                ) from exc
        return Path(path)

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Task) and other.id == self.id

    def __repr__(self) -> str:
        return f"Task(name={self.display_name()!r})"
