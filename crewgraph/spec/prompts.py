"""CrewAI's ``Prompts`` (``crewai.utilities.prompts``): the prompt pieces of an agent's task turn.

``task_execution()`` answers what crewgraph sends an agent for a task: ``system`` (the role,
goal and backstory, through the agent's ``system_template`` when it has one) and ``user``, a
template whose ``{input}`` is the task part (:meth:`Task.prompt`); ``prompt`` is both joined.
With ``use_system_prompt=False`` only ``prompt`` is given, as CrewAI does. crewgraph sends
role-tagged chat messages, so CrewAI's raw ``prompt_template``/``response_template`` are refused.
"""

# No `from __future__ import annotations` here: pydantic evaluates string annotations per field.

from typing import Any, TypedDict

from pydantic import BaseModel, ConfigDict, model_validator

__all__ = ["Prompts", "StandardPromptResult", "SystemPromptResult"]

_TASK = "Current Task: {input}\n\nBegin! This is VERY important to you, do your best work."
_TOOLS = "Use the tools available to you when they help; answer directly when you are done."


class StandardPromptResult(TypedDict):
    prompt: str


class SystemPromptResult(StandardPromptResult):
    system: str
    user: str


class Prompts(BaseModel):
    """The prompts of ``agent``'s task turns (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent: Any
    has_tools: bool = False
    system_template: str | None = None
    prompt_template: str | None = None
    response_template: str | None = None
    use_system_prompt: bool = False
    use_native_tool_calling: bool = False
    skill_loader_tool_name: str | None = None

    @model_validator(mode="after")
    def _no_raw_templates(self) -> "Prompts":
        for name in ("prompt_template", "response_template"):
            if getattr(self, name) is not None:
                raise ValueError(f"Prompts.{name} is not supported by crewgraph: it sends role-tagged chat "
                                 "messages, so raw prompt templates do not apply (use system_template)")
        return self

    def task_execution(self) -> SystemPromptResult | StandardPromptResult:
        """The system prompt and the task template (``{input}``: the task part) of a task turn."""
        from crewgraph.nodes._prompts import system_prompt

        template = self.system_template or getattr(self.agent, "system_template", None)
        system = system_prompt(self.agent.role, self.agent.goal, getattr(self.agent, "backstory", ""), template)
        user = _TASK if not self.has_tools else _TASK.replace("\n\nBegin!", f"\n\n{_TOOLS}\n\nBegin!")
        if self.use_system_prompt:
            return SystemPromptResult(system=system, user=user, prompt=f"{system}\n\n{user}")
        return StandardPromptResult(prompt=f"{system}\n\n{user}")
