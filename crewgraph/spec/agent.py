"""Agent: a role-playing worker (role, goal, backstory) with a model and tools.

A pure definition: it holds configuration, validated by pydantic with
CrewAI's field names and defaults. The compiler turns it into the
configuration of ``agent_step`` nodes; nothing here calls a model.
"""

# No `from __future__ import annotations` here: pydantic evaluates string annotations with
# compile()+eval() per field at class creation, about half of this module's import cost
# (issue 18's import budget). Names only known to type checkers are quoted instead.

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from crewgraph.spec import _execute_override
from crewgraph.spec._dump import JSON_NAMED
from crewgraph.spec._validators import check_guardrail, check_llm, check_tools
from crewgraph.spec.base_agent import BaseAgent

if TYPE_CHECKING:
    from crewgraph.outputs import LiteAgentOutput

__all__ = ["Agent"]

_TASK_OUTPUT_CHAIN = ("guardrail", "output_pydantic", "output_json", "output_file", "callback")
"""What the task does with the agent's answer (not part of ``execute_task``'s work)."""


class Agent(BaseAgent):
    """One agent of a crew. ``llm`` may be a model name (``"gpt-4o-mini"``) or a BaseLLM."""

    # id, role, goal, backstory, llm, tools, max_iter, max_rpm, allow_delegation, verbose,
    # cache and memory come from BaseAgent.
    function_calling_llm: Annotated[Any, JSON_NAMED] = Field(default=None)
    max_execution_time: float | None = Field(default=None, gt=0)
    max_retry_limit: int = Field(default=2, ge=0)
    step_callback: Annotated[Callable[..., Any] | None, JSON_NAMED] = None
    max_tool_result_chars: int | None = Field(
        default=None, ge=1, description="Most characters of one tool result the model reads"
    )
    system_template: str | None = None
    reasoning: bool = Field(default=False, description="Plan the task (a reasoning node) before working on it")
    planning: bool = Field(default=False, description="CrewAI's newer name for reasoning: plan before working")
    planning_config: Any = Field(
        default=None, description="PlanningConfig: how the agent plans (its presence turns planning on)"
    )
    max_reasoning_attempts: int | None = Field(
        default=None, ge=1, description="Most plan refinements; None: until the plan is ready (at most 5)"
    )
    inject_date: bool = Field(default=False, description="Tell the agent today's date in each task prompt")
    date_format: str = Field(default="%Y-%m-%d", min_length=1)
    respect_context_window: bool = Field(
        default=True, description="Summarise or trim the oldest conversation instead of overflowing the model"
    )
    allow_code_execution: bool = Field(default=False, description="Give the agent CodeInterpreterTool")
    code_execution_mode: Literal["safe", "unsafe"] = "safe"
    multimodal: bool = Field(default=False, description="Send image/PDF/audio input files to the model as content")
    guardrail: Annotated[Any, JSON_NAMED] = Field(
        default=None, description="Checks every answer of this agent: a (TaskOutput) -> (bool, Any) function or a text"
    )
    guardrail_max_retries: int = Field(default=3, ge=0, description="Redos the agent's guardrail allows")
    embedder: Annotated[Any, JSON_NAMED] = Field(default=None, description="Embedder of the agent's knowledge (else the crew's)")
    _executor_tools: list[Any] | None = PrivateAttr(default=None)
    _last_messages: list[Any] = PrivateAttr(default_factory=list)

    @field_validator("date_format")
    @classmethod
    def _valid_date_format(cls, v: str) -> str:
        try:
            datetime(2025, 5, 21).strftime(v)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"date_format {v!r} is not a strftime format: {exc}") from exc
        return v


    @model_validator(mode="after")
    def _code_execution_sandbox(self) -> "Agent":
        if self.allow_code_execution and self.code_execution_mode == "safe":
            raise ValueError(
                "allow_code_execution=True with code_execution_mode='safe' asks for CrewAI's Docker "
                "sandbox, which crewgraph does not have. Set code_execution_mode='unsafe' to run the "
                "agent's code in a separate Python process (a timeout and a scratch directory, but NOT "
                "a sandbox: it runs as you), or run the whole crew in a container"
            )
        return self

    @field_validator("planning_config", mode="before")
    @classmethod
    def _check_planning_config(cls, v: Any) -> Any:
        from crewgraph.spec.planning_config import PlanningConfig

        if v is None or isinstance(v, PlanningConfig):
            return v
        if isinstance(v, dict):
            return PlanningConfig(**v)
        raise ValueError(f"planning_config must be a PlanningConfig (or a dict of its fields), got {type(v).__name__}")

    @property
    def last_messages(self) -> list[Any]:
        """The conversation of this agent's last finished task (CrewAI's): what it was sent and
        answered, as that task's ``TaskOutput.messages`` keeps it; empty before its first task."""
        return list(self._last_messages)

    @property
    def planning_enabled(self) -> bool:
        """Whether the agent plans before each task (``planning``, ``planning_config`` or ``reasoning``)."""
        return self.planning or self.planning_config is not None or self.reasoning

    _validate_guardrail = field_validator("guardrail", mode="before")(classmethod(lambda cls, v: check_guardrail(v)))
    @field_validator("function_calling_llm", mode="before")
    @classmethod
    def _function_calling_llm(cls, v: Any) -> Any:
        """A model name becomes an ``LLM``, as CrewAI's ``create_llm`` makes it (YAML gives names)."""
        v = check_llm(v)
        if isinstance(v, str):
            from crewgraph.llm import LLM

            return LLM(model=v.strip())
        return v


    # ------------------------------------------------------------------ working alone
    def kickoff(
        self, messages: str | list[dict[str, Any]], response_format: type[BaseModel] | None = None,
        input_files: dict[str, Any] | None = None, from_checkpoint: Any = None,
    ) -> "LiteAgentOutput":
        """Answer ``messages`` (a text, or chat messages) without a crew; ``response_format``
        asks for a structured answer (in ``.pydantic``); ``input_files`` (name -> path or image
        URL) are given to the agent as a task's files are. Runs as a one-task crew on the same
        engine as a crew (tools, retries, events, guardrail)."""
        from crewgraph._internal.sync import run_sync
        from crewgraph.runner.solo import kickoff_agent

        _no_solo_checkpoint(from_checkpoint)
        return run_sync(kickoff_agent(self, messages, response_format, input_files))

    async def kickoff_async(
        self, messages: str | list[dict[str, Any]], response_format: type[BaseModel] | None = None,
        input_files: dict[str, Any] | None = None, from_checkpoint: Any = None,
    ) -> "LiteAgentOutput":
        """:meth:`kickoff` on the current event loop."""
        from crewgraph.runner.solo import kickoff_agent

        _no_solo_checkpoint(from_checkpoint)
        return await kickoff_agent(self, messages, response_format, input_files)

    async def akickoff(
        self, messages: str | list[dict[str, Any]], response_format: type[BaseModel] | None = None,
        input_files: dict[str, Any] | None = None, from_checkpoint: Any = None,
    ) -> "LiteAgentOutput":
        """CrewAI's native async kickoff: :meth:`kickoff_async`."""
        return await self.kickoff_async(messages, response_format, input_files, from_checkpoint)

    # ------------------------------------------------------------------ BaseAgent's contract
    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """Do ``task`` (with ``context``, the text of the tasks it depends on) and return the answer.

        This is CrewAI's seam: a subclass overriding it (or a patch of ``Agent.execute_task``) is
        what runs the agent's tasks in a crew. The default runs the agent's work on the engine:
        the model turns, tools, memory, knowledge and reasoning, not the task's guardrails,
        structured output or output file (the task does those with what this returns, as in CrewAI).
        """
        from crewgraph._internal.sync import run_sync

        return run_sync(self.aexecute_task(task, context, tools))

    async def aexecute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """:meth:`execute_task` on the current event loop (CrewAI's async twin; overridable the same way)."""
        from crewgraph.runner.solo import run_task
        from crewgraph.spec._execute_override import engine_path

        tools = tools if tools is not None else self._executor_tools
        work = task.model_copy(update={name: None for name in _TASK_OUTPUT_CHAIN} | {"guardrails": []})
        with engine_path(self):
            output = await run_task(work, agent=self, context=context, tools=tools)
        return str(output.raw)

    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        """Set the tools ``execute_task`` gives a task that names none (validated like ``tools``);
        the executor itself is the task's compiled ``agent_step`` node."""
        self._executor_tools = check_tools(tools) if tools is not None else None

    def get_delegation_tools(self, agents: Sequence[BaseAgent]) -> list[Any]:
        """The "delegate work" and "ask question" tools over ``agents`` (never this agent itself)."""
        from crewgraph.tools.delegation import delegation_tools

        return list(delegation_tools(list(agents), delegator=self))

    def __hash__(self) -> int:
        return hash(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BaseAgent) and other.id == self.id

    def __repr__(self) -> str:
        return f"Agent(role={self.role!r}, goal={self.goal[:40]!r})"


def _no_solo_checkpoint(from_checkpoint: Any) -> None:
    if from_checkpoint is not None:
        raise ValueError(
            "Agent.kickoff(from_checkpoint=...) is not supported by crewgraph: a solo agent's kickoff "
            "is not checkpointed; run the agent's work in a Crew(checkpoint=CheckpointConfig(...))"
        )


_execute_override.remember_defaults(Agent.execute_task, Agent.aexecute_task)
