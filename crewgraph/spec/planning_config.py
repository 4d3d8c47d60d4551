"""``PlanningConfig``: CrewAI's settings for an agent that plans its task before working on it.

In crewgraph an agent with ``planning=True`` or a ``planning_config`` gets a ``reasoning``
node before its step (the same node ``reasoning=True`` gives): it writes a plan, refines it
until it says it is ready (at most ``max_attempts`` times, else up to 5), and the plan goes
into the task prompt. ``llm`` is the model that plans (else the agent's). CrewAI's
step-by-step executor -- observing every step, replanning, per-step limits, custom planning
prompts -- is not crewgraph's: those fields are accepted at CrewAI's defaults and refused
otherwise, naming the field. ``reasoning_effort`` "low" and "medium" both plan once and work
without per-step observation (CrewAI's "low"); "high" is refused.
"""

# No `from __future__ import annotations` here: pydantic evaluates string annotations per field.

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from crewgraph.spec._validators import check_llm

__all__ = ["PlanningConfig"]

_STEP_EXECUTOR = "crewgraph plans once, then the agent works through its task (no per-step executor)"
_DEFAULTS: dict[str, tuple[Any, str]] = {
    "observe_steps": (None, _STEP_EXECUTOR + "; observe_steps=True is not supported"),
    "max_replans": (3, _STEP_EXECUTOR + "; there is no replanning"),
    "max_step_iterations": (15, _STEP_EXECUTOR + "; bound the agent's turns with Agent(max_iter=...)"),
    "step_timeout": (None, _STEP_EXECUTOR + "; bound the task with Agent(max_execution_time=...)"),
    "max_steps": (20, "crewgraph does not bound the number of steps of a plan"),
    "system_prompt": (None, "custom planning prompts are not supported (the agent's system prompt is used)"),
    "plan_prompt": (None, "custom planning prompts are not supported"),
    "refine_prompt": (None, "custom planning prompts are not supported"),
}


class PlanningConfig(BaseModel):
    """How an agent plans before working on a task (see the module docstring for what applies)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    reasoning_effort: Literal["low", "medium", "high"] = "medium"
    observe_steps: bool | None = None
    max_attempts: int | None = Field(default=None, ge=1, description="Most plan refinements (None: up to 5)")
    max_steps: int = Field(default=20, ge=1)
    system_prompt: str | None = None
    plan_prompt: str | None = None
    refine_prompt: str | None = None
    max_replans: int = Field(default=3, ge=0)
    max_step_iterations: int = Field(default=15, ge=1)
    step_timeout: int | None = None
    llm: Any = Field(default=None, description="The model that plans: a name or a BaseLLM (else the agent's)")

    _validate_llm = field_validator("llm", mode="before")(classmethod(lambda cls, v: check_llm(v)))

    @model_validator(mode="after")
    def _what_crewgraph_does_not_do(self) -> "PlanningConfig":
        if self.reasoning_effort == "high":
            raise ValueError("PlanningConfig.reasoning_effort='high' is not supported by crewgraph: "
                             f"{_STEP_EXECUTOR}; use 'low' or 'medium'")
        for name, (default, why) in _DEFAULTS.items():
            value = getattr(self, name)
            if value != default and not (name == "observe_steps" and value is False):
                raise ValueError(f"PlanningConfig.{name}={value!r} is not supported by crewgraph ({why})")
        return self
