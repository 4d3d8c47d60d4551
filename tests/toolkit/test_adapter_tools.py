"""LlamaIndexTool on the real llama-index-core; ComposioTool on a Composio client's interface."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from crewgraph.toolkit import ComposioTool, LlamaIndexTool
from crewgraph.tools import ToolFailure

HAS_LLAMA = importlib.util.find_spec("llama_index") is not None


@pytest.mark.skipif(not HAS_LLAMA, reason="llama-index-core is not installed (pip install 'crewgraph[llamaindex]')")
def test_llamaindex_function_tool() -> None:
    from llama_index.core.tools import FunctionTool

    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    tool = LlamaIndexTool.from_tool(FunctionTool.from_defaults(fn=multiply, return_direct=True))
    spec = tool.to_spec()
    assert spec.name == "multiply" and "Multiply two integers." in spec.description
    assert spec.parameters["required"] == ["a", "b"] and spec.parameters["properties"]["a"]["type"] == "integer"
    assert tool.run(a=6, b=7) == "42" and tool.result_as_answer
    assert tool.validate_arguments({"a": "3", "b": 2}) == {"a": 3, "b": 2}


@pytest.mark.skipif(not HAS_LLAMA, reason="llama-index-core is not installed (pip install 'crewgraph[llamaindex]')")
def test_llamaindex_query_engine() -> None:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.response.schema import Response
    from llama_index.core.callbacks import CallbackManager

    class Handbook(BaseQueryEngine):
        """A query engine over a two-line handbook (no LLM needed)."""

        def _query(self, query_bundle: Any) -> Response:
            return Response(response="Vacation requests go to HR." if "vacation" in query_bundle.query_str else "Unknown.")

        async def _aquery(self, query_bundle: Any) -> Response:
            return self._query(query_bundle)

        def _get_prompt_modules(self) -> dict[str, Any]:
            return {}

    tool = LlamaIndexTool.from_query_engine(Handbook(callback_manager=CallbackManager([])), name="handbook",
                                            description="Answers questions about the employee handbook.")
    assert tool.name == "handbook" and list(tool.to_spec().parameters["properties"]) == ["input"]
    assert tool.run(input="Where do vacation requests go?") == "Vacation requests go to HR."


def test_llamaindex_rejects_other_objects() -> None:
    if not HAS_LLAMA:
        with pytest.raises(ImportError, match=r"pip install 'crewgraph\[llamaindex\]'"):
            LlamaIndexTool.from_tool(object())
        return
    with pytest.raises(TypeError, match=r"needs a llama_index\.core\.tools\.BaseTool"):
        LlamaIndexTool.from_tool(object())


class _Tools:
    """The two methods of ``Composio().tools`` the adapter uses, answering as the SDK documents."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []

    def get_raw_composio_tool_by_slug(self, slug: str) -> dict[str, Any]:
        return {"slug": slug, "name": "Get repos", "description": "List the repositories of an owner.",
                "input_parameters": {"type": "object", "title": "Req", "properties": {"owner": {"type": "string"}},
                                     "required": ["owner"]}}

    def execute(self, slug: str, arguments: dict[str, Any], user_id: str) -> dict[str, Any]:
        self.calls.append((slug, arguments, user_id))
        if arguments["owner"] == "nobody":
            return {"successful": False, "data": {}, "error": "owner not found", "log_id": "l1"}
        return {"successful": True, "data": {"repos": ["crewgraph"]}, "error": None, "log_id": "l2"}


class _Composio:
    def __init__(self) -> None:
        self.tools = _Tools()


def test_composio_action() -> None:
    client = _Composio()
    tool = ComposioTool.from_action("GITHUB_GET_REPOS", user_id="u1", composio=client)
    assert tool.name == "GITHUB_GET_REPOS" and tool.description == "List the repositories of an owner."
    assert tool.to_spec().parameters["required"] == ["owner"]
    assert tool.run(owner="acme") == {"repos": ["crewgraph"]}
    assert client.tools.calls[-1] == ("GITHUB_GET_REPOS", {"owner": "acme"}, "u1")
    failed = tool.run(owner="nobody")
    assert isinstance(failed, ToolFailure) and "owner not found" in failed.message


def test_composio_without_the_sdk_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("composio") is not None:
        monkeypatch.delenv("COMPOSIO_API_KEY", raising=False)
        with pytest.raises(ValueError, match="COMPOSIO_API_KEY"):
            ComposioTool.from_action("X")
        return
    with pytest.raises(ImportError, match="pip install composio"):
        ComposioTool.from_action("GITHUB_GET_REPOS")
