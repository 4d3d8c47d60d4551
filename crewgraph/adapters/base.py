"""CrewAI's adapter contract for agents of other frameworks: ``BaseAgentAdapter`` (the agent),
``BaseToolAdapter`` (crewgraph tools in the framework's shape) and ``BaseConverterAdapter``
(structured output asked for in the prompt and cut out of the reply).

An adapter is a :class:`~crewgraph.spec.base_agent.BaseAgent`, so in a crew its task compiles
to an ``external_agent`` node that calls its ``execute_task(task, context, tools)``; the
answer then goes through the task's convert / guardrail / memory nodes like any agent's.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ConfigDict, PrivateAttr, model_validator

from crewgraph.spec.base_agent import BaseAgent

__all__ = ["BaseAgentAdapter", "BaseConverterAdapter", "BaseToolAdapter", "task_prompt"]

_CODE_BLOCK = re.compile(r"```(?:json)?\s*([\s\S]*?)```")
_JSON_OBJECT = re.compile(r"\{[\s\S]*}")


class BaseAgentAdapter(BaseAgent, ABC):
    """The base of agents from other frameworks working as crew members.

    ``agent_config`` holds options for the framework's own agent (passed through when it is
    built). Subclasses implement ``execute_task``, ``create_agent_executor`` and
    ``configure_tools``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    adapted_structured_output: bool = False
    _agent_config: dict[str, Any] | None = PrivateAttr(default=None)

    def __init__(self, agent_config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.adapted_agent = True
        self._agent_config = agent_config

    @model_validator(mode="after")
    def _what_the_framework_cannot_use(self) -> BaseAgentAdapter:
        """The other framework's agent does the work, so crewgraph's knowledge and skills
        cannot reach it: setting them is refused rather than ignored."""
        given = [name for name in ("knowledge", "knowledge_sources", "knowledge_config", "skills")
                 if getattr(self, name) not in (None, [])]
        if given:
            raise ValueError(
                f"{type(self).__name__}: {', '.join(given)} is not supported for agents of other "
                "frameworks (their own agent does the work); give the knowledge to an Agent, or put "
                "what it needs into the task"
            )
        return self

    @abstractmethod
    def configure_tools(self, tools: list[Any] | None = None) -> None:
        """Turn crewgraph tools into the framework's and give them to its agent."""

    def configure_structured_output(self, task: Any) -> None:
        """Prepare the framework's agent for the task's structured output (default: nothing)."""

    def get_delegation_tools(self, agents: Sequence[BaseAgent]) -> list[Any]:
        """The "delegate work" and "ask question" tools over ``agents`` (crewgraph's)."""
        from crewgraph.tools.delegation import delegation_tools

        return list(delegation_tools(list(agents), delegator=self))


class BaseToolAdapter(ABC):
    """Converts crewgraph tools to another framework's tools (``converted_tools``)."""

    def __init__(self, tools: list[Any] | None = None) -> None:
        self.original_tools: list[Any] = list(tools or [])
        self.converted_tools: list[Any] = []

    @abstractmethod
    def configure_tools(self, tools: list[Any]) -> None:
        """Convert ``tools`` into ``converted_tools``."""

    def tools(self) -> list[Any]:
        return self.converted_tools

    @staticmethod
    def sanitize_tool_name(tool_name: str) -> str:
        """A name the framework's function calling accepts."""
        return tool_name.replace(" ", "_")


class BaseConverterAdapter(ABC):
    """Structured output for an adapted agent: the JSON schema goes into its system prompt,
    and the JSON is cut out of its reply (crewgraph's convert node then validates it)."""

    def __init__(self, agent_adapter: BaseAgentAdapter) -> None:
        self.agent_adapter = agent_adapter
        self._output_format: Literal["json", "pydantic"] | None = None
        self._schema: str | None = None

    @abstractmethod
    def configure_structured_output(self, task: Any) -> None:
        """Read the task's ``output_json`` / ``output_pydantic``."""

    @abstractmethod
    def enhance_system_prompt(self, base_prompt: str) -> str:
        """``base_prompt`` plus the structured-output instructions, if any."""

    def post_process_result(self, result: str) -> str:
        """The reply, or the JSON in it when structured output was asked for."""
        if not getattr(self, "_output_format", None):  # a subclass may not call this __init__
            return result
        return self._extract_json_from_text(result)

    @staticmethod
    def _valid_json(text: str) -> str | None:
        try:
            json.loads(text)
        except (json.JSONDecodeError, TypeError):
            return None
        return text

    @staticmethod
    def _extract_json_from_text(result: str) -> str:
        if not isinstance(result, str):
            return str(result)
        if (found := BaseConverterAdapter._valid_json(result)) is not None:
            return found
        for match in _CODE_BLOCK.finditer(result):
            if (found := BaseConverterAdapter._valid_json(match.group(1).strip())) is not None:
                return found
        for match in _JSON_OBJECT.finditer(result):
            if (found := BaseConverterAdapter._valid_json(match.group())) is not None:
                return found
        return result

    @staticmethod
    def _configure_format_from_task(task: Any) -> tuple[Literal["json", "pydantic"] | None, dict[str, Any] | None]:
        if getattr(task, "output_json", None):
            return "json", task.output_json.model_json_schema()
        if getattr(task, "output_pydantic", None):
            return "pydantic", task.output_pydantic.model_json_schema()
        return None, None


class StructuredOutputConverter(BaseConverterAdapter):
    """The converter both adapters use: the schema as prompt instructions."""

    def configure_structured_output(self, task: Any) -> None:
        fmt, schema = self._configure_format_from_task(task)
        self._output_format = fmt
        self._schema = json.dumps(schema, indent=2) if schema is not None else None
        self.agent_adapter.adapted_structured_output = fmt is not None

    def enhance_system_prompt(self, base_prompt: str) -> str:
        if not self._output_format or not self._schema:
            return base_prompt
        return (
            f"{base_prompt}\n\nYour final answer must be a single JSON object matching this JSON schema, "
            f"with no other text:\n{self._schema}"
        )


def task_prompt(task: Any, context: str | None) -> str:
    """What the adapted agent is asked: the task (description and expected output), then the context."""
    prompt = f"{task.description}\n\nThis is the expected criteria for your final answer: {task.expected_output}"
    if context:
        prompt += f"\n\nThis is the context you're working with:\n{context}"
    return prompt


def system_prompt(agent: BaseAgent) -> str:
    return (
        f"You are {agent.role}.\n\nYour goal is: {agent.goal}\n\nYour backstory: {agent.backstory}\n\n"
        "When working on tasks, think step-by-step and use the available tools when necessary."
    )


def tool_result_text(tool: Any, result: Any) -> str:
    """The text a framework's agent reads for a crewgraph tool's result."""
    formatter = getattr(tool, "format_output_for_agent", None)
    return formatter(result) if callable(formatter) else str(result)
