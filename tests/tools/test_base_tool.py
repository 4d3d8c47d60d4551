"""BaseTool and @tool: schemas from signatures, direct calls, specs, output formatting."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from pydantic import BaseModel, Field

from crewgraph.llm.types import ToolSpec
from crewgraph.tools import BaseTool, StructuredTool, Tool, ToolFailure, tool


class Point(BaseModel):
    x: int
    y: int


class Located(BaseModel):
    name: str
    where: Point


class EchoTool(BaseTool):
    name: str = "Echo things"
    description: str = "Repeats its input."

    def _run(self, text: str, times: int = 1) -> str:
        return " ".join([text] * times)


class AsyncEcho(BaseTool):
    name: str = "async_echo"
    description: str = "Repeats asynchronously."

    async def _run(self, text: str = "") -> str:
        await asyncio.sleep(0)
        return f"async {text}"


class LocateTool(BaseTool):
    name: str = "locate"
    description: str = "Finds a place."

    def _run(self, name: str) -> Located:
        return Located(name=name, where=Point(x=1, y=2))


def test_args_schema_is_built_from_run_signature() -> None:
    t = EchoTool()
    fields = t.args_schema.model_fields
    assert list(fields) == ["text", "times"]
    assert fields["text"].is_required()
    assert fields["times"].default == 1


def test_explicit_args_schema_is_kept() -> None:
    class In(BaseModel):
        argument: str = Field(..., description="Description of the argument.")

    class Custom(BaseTool):
        name: str = "custom"
        description: str = "d"
        args_schema: type[BaseModel] = In

        def _run(self, argument: str) -> str:
            return argument

    assert Custom().args_schema is In
    assert Custom().to_spec().parameters["properties"]["argument"]["description"] == (
        "Description of the argument."
    )


def test_to_spec_sanitizes_name_and_gives_json_schema() -> None:
    spec = EchoTool().to_spec()
    assert isinstance(spec, ToolSpec)
    assert spec.name == "Echo_things"
    assert spec.description == "Repeats its input."
    assert spec.parameters["type"] == "object"
    assert spec.parameters["required"] == ["text"]
    assert spec.parameters["properties"]["times"] == {"default": 1, "type": "integer"}
    assert spec.to_openai()["function"]["name"] == "Echo_things"


def test_run_returns_own_value_and_counts_use() -> None:
    t = LocateTool()
    result = t.run(name="home")
    assert isinstance(result, Located)
    assert result.where.y == 2
    assert t.current_usage_count == 1


def test_result_schema_inferred_from_return_annotation() -> None:
    assert LocateTool().result_schema is Located
    assert EchoTool().result_schema is None


def test_async_tool_runs_from_sync_code() -> None:
    t = AsyncEcho()
    assert t.is_async
    assert t.run(text="hi") == "async hi"


def test_async_tool_runs_from_sync_code_inside_a_running_loop() -> None:
    t = AsyncEcho()

    async def main() -> str:
        return t.run(text="nested")  # a sync call made while a loop is running

    assert asyncio.run(main()) == "async nested"


def test_arun_awaits_async_and_threads_sync() -> None:
    async def main() -> tuple[str, str]:
        return await AsyncEcho().arun(text="a"), await EchoTool().arun(text="b", times=2)

    assert asyncio.run(main()) == ("async a", "b b")


def test_format_output_defaults() -> None:
    t = EchoTool()
    assert t.format_output_for_agent("plain") == "plain"
    # dicts and lists as CrewAI renders a tool result: str() of the value
    assert t.format_output_for_agent({"a": [1, 2]}) == "{'a': [1, 2]}"
    assert t.format_output_for_agent([1, "x"]) == "[1, 'x']"
    assert json.loads(t.format_output_for_agent(Point(x=1, y=2))) == {"x": 1, "y": 2}
    assert t.format_output_for_agent(42) == "42"
    assert t.format_output_for_agent(ToolFailure(message="nope")) == "nope"


def test_format_output_validates_dicts_against_result_schema() -> None:
    t = LocateTool()
    text = t.format_output_for_agent({"name": "n", "where": {"x": "3", "y": 4}})
    assert json.loads(text) == {"name": "n", "where": {"x": 3, "y": 4}}


def test_validate_arguments_coerces_and_keeps_models() -> None:
    class Place(BaseTool):
        name: str = "place"
        description: str = "d"

        def _run(self, where: Point, label: str = "") -> str:
            return f"{label}{where.x}"

    kwargs = Place().validate_arguments({"where": {"x": "5", "y": 1}})
    assert isinstance(kwargs["where"], Point)
    assert kwargs == {"where": Point(x=5, y=1), "label": ""}


def test_kwargs_only_run_keeps_extra_arguments() -> None:
    class Open(BaseTool):
        name: str = "open"
        description: str = "d"

        def _run(self, **kwargs: object) -> str:
            return ",".join(sorted(kwargs))

    t = Open()
    assert t.validate_arguments({"b": 1, "a": 2}) == {"b": 1, "a": 2}


def test_missing_run_is_an_error() -> None:
    class NoRun(BaseTool):
        name: str = "x"
        description: str = "y"

    with pytest.raises(TypeError):
        NoRun()  # type: ignore[abstract]


# --- @tool -----------------------------------------------------------------


def test_tool_decorator_without_name() -> None:
    @tool
    def add(a: int, b: int = 2) -> int:
        """Adds two numbers."""
        return a + b

    assert isinstance(add, Tool)
    assert add.name == "add"
    assert add.description == "Adds two numbers."
    assert add.run(a=1) == 3
    assert add.to_spec().parameters["required"] == ["a"]


def test_tool_decorator_with_name_and_options() -> None:
    @tool("Name of my tool", result_as_answer=True, max_usage_count=2)
    def my_tool(question: str) -> str:
        """Clear description for what this tool is useful for."""
        return f"answer to {question}"

    assert my_tool.name == "Name of my tool"
    assert my_tool.result_as_answer is True
    assert my_tool.max_usage_count == 2
    assert my_tool.run(question="q") == "answer to q"


def test_tool_decorator_on_async_function() -> None:
    @tool("fetch_data_async")
    async def fetch(query: str) -> str:
        """Asynchronously fetch data based on the query."""
        await asyncio.sleep(0)
        return f"Data retrieved for {query}"

    assert fetch.is_async
    assert fetch.run(query="x") == "Data retrieved for x"


def test_tool_decorator_requires_a_docstring() -> None:
    with pytest.raises(ValueError, match="needs a docstring"):

        @tool
        def undocumented(x: int) -> int:
            return x


def test_tool_decorator_rejects_non_callables() -> None:
    with pytest.raises(TypeError):
        tool(42)  # type: ignore[call-overload]


def test_structured_tool_alias_and_from_function() -> None:
    def shout(text: str) -> str:
        return text.upper()

    t = StructuredTool.from_function(shout, description="Shouts.")
    assert t.run(text="hi") == "HI"


def test_cache_function_can_be_assigned() -> None:
    @tool
    def mul(first_number: int, second_number: int) -> str:
        """Multiplies."""
        return str(first_number * second_number)

    def cache_func(args: object, result: object) -> bool:
        return False

    mul.cache_function = cache_func
    assert mul.cache_function is cache_func


def test_importing_tools_does_not_load_heavy_libraries() -> None:
    code = (
        "import sys, crewgraph.tools, crewgraph.toolkit\n"
        "heavy = [m for m in ('httpx', 'selectolax', 'pypdf', 'docx') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_base_tool_module_exposes_tool_and_decorator() -> None:
    from crewgraph.tools import base_tool

    assert base_tool.Tool is Tool
    assert base_tool.tool is tool


def test_a_pydantic_v1_args_schema_is_refused_in_one_line() -> None:
    from pydantic.v1 import BaseModel as V1Model

    from crewgraph.errors import ConfigurationError

    class V1Args(V1Model):
        query: str

    with pytest.raises(ConfigurationError) as caught:

        class Search(BaseTool):  # CrewAI's older examples wrote pydantic.v1 schemas
            name: str = "search"
            description: str = "d"
            args_schema: type = V1Args

            def _run(self, query: str) -> str:
                return query

    assert str(caught.value) == (
        "Search.args_schema is V1Args, a pydantic.v1 model: tools take pydantic v2 models "
        "(`from pydantic import BaseModel`, not `from pydantic.v1 import BaseModel`)"
    )
