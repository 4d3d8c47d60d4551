"""The toolkit namespace: explicit sorted exports; RAG tools resolved lazily from rag_tools."""

from __future__ import annotations

import importlib.util

import pytest

import crewgraph.toolkit as toolkit
import crewgraph.tools as tools
from crewgraph.tools import BaseTool

RAG = ["CSVSearchTool", "DOCXSearchTool", "DirectorySearchTool", "JSONSearchTool", "MDXSearchTool",
       "PDFSearchTool", "RagTool", "TXTSearchTool", "XMLSearchTool"]


@pytest.mark.parametrize("module", [toolkit, tools])
def test_all_is_sorted_and_resolvable(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert names == sorted(names)
    for name in names:
        assert getattr(module, name) is not None


def test_toolkit_tools_are_base_tools_with_defaults() -> None:
    for name in toolkit.__all__:
        obj = getattr(toolkit, name)
        if isinstance(obj, type) and issubclass(obj, BaseTool):
            required = {n: f for n, f in obj.model_fields.items() if f.is_required()}
            if any(f.annotation is not str for f in required.values()):
                continue  # adapters (LlamaIndexTool, ComposioTool) are built by from_tool/from_action
            instance = obj(**dict.fromkeys(required, "x"))  # e.g. ApifyActorsTool(actor_name=...)
            assert instance.name and instance.description
            assert instance.to_spec().parameters["type"] == "object"


@pytest.mark.parametrize("name", RAG)
def test_rag_names_resolve_lazily(name: str) -> None:
    assert name in dir(toolkit)
    if importlib.util.find_spec("crewgraph.toolkit.rag_tools") is None:
        with pytest.raises(AttributeError, match="rag_tools"):
            getattr(toolkit, name)
    else:
        assert getattr(toolkit, name) is not None


def test_unknown_name() -> None:
    with pytest.raises(AttributeError):
        toolkit.NoSuchTool  # noqa: B018


def test_hosted_tools_resolve_lazily_to_their_modules() -> None:
    from crewgraph.toolkit import SerperDevTool

    assert SerperDevTool.__module__ == "crewgraph.toolkit.serper_tool"
    assert "SerperDevTool" in dir(toolkit)


def test_a_tool_not_provided_yet_says_what_to_use_instead() -> None:
    with pytest.raises(ImportError, match="QdrantVectorSearchTool"):
        from crewgraph.toolkit import CouchbaseFTSVectorSearchTool  # noqa: F401
