"""LangGraph agents as crew members (CrewAI's ``LangGraphAgentAdapter``); needs the
``langgraph`` extra (``langgraph`` and ``langchain-openai``).

The adapter builds LangGraph's prebuilt ReAct agent (``create_react_agent``) on its model,
with the crew's tools converted to LangChain tools, and runs it once per task. ``llm`` is a
LangChain chat model, a model name LangChain resolves (``"openai:gpt-4o"``), or a crewgraph
``LLM`` (its model, ``base_url`` and ``api_key`` become a ``ChatOpenAI``).
"""

from __future__ import annotations

import warnings
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

__all__ = ["LangGraphAgentAdapter", "LangGraphConverterAdapter", "LangGraphToolAdapter"]


class LangGraphToolAdapter(BaseToolAdapter):
    """crewgraph tools as LangChain ``StructuredTool``s (their argument schemas kept)."""

    def configure_tools(self, tools: list[Any]) -> None:
        from langchain_core.tools import StructuredTool

        converted: list[Any] = []
        for tool in tools:
            if not hasattr(tool, "to_spec"):  # already a LangChain tool
                converted.append(tool)
                continue

            def call(_tool: Any = tool, **kwargs: Any) -> str:
                return tool_result_text(_tool, _tool.run(**kwargs))

            async def acall(_tool: Any = tool, **kwargs: Any) -> str:
                return tool_result_text(_tool, await _tool.arun(**kwargs))

            converted.append(StructuredTool.from_function(
                func=call, coroutine=acall, name=self.sanitize_tool_name(tool.to_spec().name),
                description=tool.description, args_schema=tool.args_schema,
            ))
        self.original_tools = list(tools)
        self.converted_tools = converted


class LangGraphConverterAdapter(StructuredOutputConverter):
    """Structured output for a LangGraph agent, through its system prompt."""


class LangGraphAgentAdapter(BaseAgentAdapter):
    """A LangGraph ReAct agent working a crew's tasks."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    llm: Any = None
    function_calling_llm: Any = Field(default=None)
    step_callback: Any = Field(default=None)
    model: str = Field(default="gpt-4o")
    _graph: Any = PrivateAttr(default=None)
    _memory: Any = PrivateAttr(default=None)
    _max_iterations: int = PrivateAttr(default=10)
    _tool_adapter: LangGraphToolAdapter = PrivateAttr()
    _converter_adapter: LangGraphConverterAdapter = PrivateAttr()

    # any LangChain chat model is a valid llm here (BaseAgent only takes crewgraph models)
    _validate_base_llm = field_validator("llm", mode="before")(classmethod(lambda cls, v: v))

    def __init__(
        self, role: str, goal: str, backstory: str, tools: list[Any] | None = None, llm: Any = None,
        max_iterations: int = 10, agent_config: dict[str, Any] | None = None, **kwargs: Any,
    ) -> None:
        import_extra("langgraph.prebuilt", "langgraph", "LangGraphAgentAdapter (a LangGraph agent in a crew)")
        import_extra("langchain_openai", "langgraph", "LangGraphAgentAdapter (a LangGraph agent in a crew)")
        super().__init__(role=role, goal=goal, backstory=backstory, tools=tools or [], llm=llm,
                         agent_config=agent_config, **kwargs)
        if self.llm is None:
            self.llm = self.model
        self._tool_adapter = LangGraphToolAdapter(tools=tools)
        self._converter_adapter = LangGraphConverterAdapter(self)
        self._max_iterations = max_iterations
        self._setup_graph()

    def _chat_model(self) -> Any:
        from crewgraph.llm.base import BaseLLM

        if isinstance(self.llm, BaseLLM):
            from langchain_openai import ChatOpenAI

            options: dict[str, Any] = {"model": self.llm.model}
            for name in ("base_url", "api_key"):
                if getattr(self.llm, name, None):
                    options[name] = getattr(self.llm, name)
            return ChatOpenAI(**options)
        return self.llm

    def _setup_graph(self, tools: list[Any] | None = None) -> None:
        from langgraph.checkpoint.memory import MemorySaver
        from langgraph.prebuilt import create_react_agent

        self._tool_adapter.configure_tools(list(tools if tools is not None else self.tools))
        self._memory = MemorySaver()
        with warnings.catch_warnings():  # LangGraph 1.x points to langchain.agents; CrewAI builds this agent
            warnings.filterwarnings("ignore", message="create_react_agent has been moved")
            self._graph = create_react_agent(
                model=self._chat_model(), tools=self._tool_adapter.tools(), checkpointer=self._memory,
                debug=self.verbose, **(self._agent_config or {}),
            )

    def _build_system_prompt(self) -> str:
        return self._converter_adapter.enhance_system_prompt(system_prompt(self))

    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        """Run the LangGraph agent on ``task`` (with ``context``) and return its last message."""
        self.create_agent_executor(tools)
        self.configure_structured_output(task)
        config = {"configurable": {"thread_id": f"task_{id(task)}"}, "recursion_limit": 2 * self._max_iterations + 1}
        result = self._graph.invoke(
            {"messages": [("system", self._build_system_prompt()), ("user", task_prompt(task, context))]}, config
        )
        messages = result.get("messages", []) if isinstance(result, dict) else []
        last = messages[-1] if messages else None
        answer = last.get("content", "") if isinstance(last, dict) else getattr(last, "content", "")
        if isinstance(answer, list):  # content parts
            answer = "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in answer)
        return self._converter_adapter.post_process_result(str(answer or "")) or (
            "Task execution completed but no clear answer was provided."
        )

    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        self.configure_tools(tools)

    def configure_tools(self, tools: list[Any] | None = None) -> None:
        """Rebuild the agent with the adapter's tools plus ``tools`` (the task's)."""
        if tools:
            merged = {t.name: t for t in [*self.tools, *tools]}
            self._setup_graph(list(merged.values()))

    def configure_structured_output(self, task: Any) -> None:
        self._converter_adapter.configure_structured_output(task)

    @staticmethod
    def get_output_converter(llm: Any, text: str, model: Any, instructions: str) -> Any:
        """CrewAI's hook for a converter; crewgraph's convert node does this after the task."""
        raise NotImplementedError("structured output of adapted agents goes through the task's convert node")
