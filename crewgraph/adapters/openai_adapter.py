"""OpenAI Agents SDK agents as crew members (CrewAI's ``OpenAIAgentAdapter``); needs the
``openai-agents`` extra.

Each task builds an ``agents.Agent`` (name: the role; instructions: role, goal and backstory,
plus the structured-output schema when the task wants one) with the crew's tools converted
to ``FunctionTool``s, and runs it with the SDK's ``Runner``. ``model`` is a model name, an
SDK ``Model`` (e.g. ``OpenAIChatCompletionsModel``), or a crewgraph ``LLM`` (its model,
``base_url`` and ``api_key`` become a chat-completions model on that server).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from crewgraph._internal.extras import import_extra
from crewgraph.adapters.base import (
    BaseAgentAdapter,
    BaseToolAdapter,
    StructuredOutputConverter,
    system_prompt,
    task_prompt,
    tool_result_text,
)

__all__ = ["OpenAIAgentAdapter", "OpenAIAgentToolAdapter", "OpenAIConverterAdapter"]

_FEATURE = "OpenAIAgentAdapter (an OpenAI Agents SDK agent in a crew)"


class OpenAIAgentToolAdapter(BaseToolAdapter):
    """crewgraph tools as the SDK's ``FunctionTool``s (JSON schema from ``args_schema``)."""

    def configure_tools(self, tools: list[Any]) -> None:
        from agents import FunctionTool

        converted: list[Any] = []
        for tool in tools:
            if not hasattr(tool, "to_spec"):  # already an SDK tool
                converted.append(tool)
                continue
            spec = tool.to_spec()

            async def invoke(_ctx: Any, arguments: str, _tool: Any = tool) -> str:
                kwargs = json.loads(arguments) if arguments else {}
                return tool_result_text(_tool, await _tool.arun(**kwargs))

            converted.append(FunctionTool(
                name=self.sanitize_tool_name(spec.name), description=spec.description,
                params_json_schema=spec.parameters, on_invoke_tool=invoke, strict_json_schema=False,
            ))
        self.original_tools = list(tools)
        self.converted_tools = converted


class OpenAIConverterAdapter(StructuredOutputConverter):
    """Structured output for an OpenAI Agents SDK agent, through its instructions."""


class OpenAIAgentAdapter(BaseAgentAdapter):
    """An OpenAI Agents SDK agent working a crew's tasks."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llm: Any = None
    function_calling_llm: Any = Field(default=None)
    step_callback: Any = Field(default=None)
    _openai_agent: Any = PrivateAttr(default=None)
    _runner: Any = PrivateAttr(default=None)
    _tool_adapter: OpenAIAgentToolAdapter = PrivateAttr()
    _converter_adapter: OpenAIConverterAdapter = PrivateAttr()

    _validate_base_llm = field_validator("llm", mode="before")(classmethod(lambda cls, v: v))

    def __init__(self, **kwargs: Any) -> None:
        import_extra("agents", "openai-agents", _FEATURE)
        model = kwargs.pop("model", None)
        if model is not None and kwargs.get("llm") is not None:
            raise ValueError("OpenAIAgentAdapter: give model= or llm=, not both")
        kwargs["llm"] = model if model is not None else kwargs.get("llm") or "gpt-4o-mini"
        super().__init__(**kwargs)
        self._tool_adapter = OpenAIAgentToolAdapter(tools=kwargs.get("tools"))
        self._converter_adapter = OpenAIConverterAdapter(agent_adapter=self)

    def _model(self) -> Any:
        from crewgraph.llm.base import BaseLLM

        if isinstance(self.llm, BaseLLM):
            from agents import OpenAIChatCompletionsModel
            from openai import AsyncOpenAI

            client = AsyncOpenAI(base_url=getattr(self.llm, "base_url", None),
                                 api_key=getattr(self.llm, "api_key", None) or None)
            return OpenAIChatCompletionsModel(model=self.llm.model, openai_client=client)
        return self.llm

    def _build_system_prompt(self) -> str:
        return self._converter_adapter.enhance_system_prompt(system_prompt(self))

    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        """Build the SDK agent for the next task (the adapter's tools plus ``tools``)."""
        from agents import Agent, Runner

        self._openai_agent = Agent(name=self.role, instructions=self._build_system_prompt(), model=self._model(),
                                   **(self._agent_config or {}))
        merged = {t.name: t for t in [*self.tools, *(tools or [])]}
        if merged:
            self.configure_tools(list(merged.values()))
        self._runner = Runner

    def configure_tools(self, tools: list[Any] | None = None) -> None:
        if tools:
            self._tool_adapter.configure_tools(tools)
            if self._openai_agent is not None:
                self._openai_agent.tools = self._tool_adapter.tools()

    def configure_structured_output(self, task: Any) -> None:
        self._converter_adapter.configure_structured_output(task)

    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """Run the SDK agent on ``task`` (with ``context``) and return its final output."""
        self.configure_structured_output(task)
        self.create_agent_executor(tools)
        if self.verbose:
            from agents import enable_verbose_stdout_logging

            enable_verbose_stdout_logging()
        result = self._runner.run_sync(self._openai_agent, task_prompt(task, context), max_turns=self.max_iter)
        return self.handle_execution_result(result)

    async def aexecute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """:meth:`execute_task` on the current event loop."""
        self.configure_structured_output(task)
        self.create_agent_executor(tools)
        result = await self._runner.run(self._openai_agent, task_prompt(task, context), max_turns=self.max_iter)
        return self.handle_execution_result(result)

    def handle_execution_result(self, result: Any) -> str:
        output = result.final_output
        return self._converter_adapter.post_process_result(output if isinstance(output, str) else str(output))

    @staticmethod
    def get_output_converter(llm: Any, text: str, model: Any, instructions: str) -> Any:
        raise NotImplementedError("structured output of adapted agents goes through the task's convert node")
