"""LlamaIndexTool: a LlamaIndex tool or query engine as a crewgraph tool.

``LlamaIndexTool.from_tool(tool)`` wraps any LlamaIndex ``BaseTool``
(``FunctionTool``, ``QueryEngineTool``...): its ``metadata`` gives the name,
description and argument schema (``fn_schema``), ``return_direct`` becomes
``result_as_answer``, and a call runs ``tool.call(**arguments)`` and hands
back the output's ``content``. ``from_query_engine(engine, name, description)``
builds LlamaIndex's own ``QueryEngineTool`` first, as CrewAI does. Both need
``llama-index-core`` (``pip install 'crewgraph[llamaindex]'``) and say so
when it is missing.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from pydantic import Field

from crewgraph.toolkit._hosted import missing_library
from crewgraph.tools.adapters import JSONSchemaTool

__all__ = ["LlamaIndexTool"]


def _require() -> None:
    if importlib.util.find_spec("llama_index") is None or importlib.util.find_spec("llama_index.core") is None:
        raise ImportError(missing_library("LlamaIndexTool", "llama-index-core", "'crewgraph[llamaindex]'"))


def _content(output: Any) -> Any:
    content = getattr(output, "content", None)
    return content if content is not None else str(output)


class LlamaIndexTool(JSONSchemaTool):
    """Built with :meth:`from_tool` or :meth:`from_query_engine` (``llama_index_tool`` is the original)."""

    llama_index_tool: Any = Field(default=None, exclude=True)

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("llama_index") is None:
            return [missing_library("LlamaIndexTool", "llama-index-core", "'crewgraph[llamaindex]'")]
        return []

    @classmethod
    def from_tool(cls, tool: Any, **fields: Any) -> LlamaIndexTool:
        """Wrap a LlamaIndex tool (anything with ``metadata`` and ``call``)."""
        _require()
        from llama_index.core.tools import BaseTool as LlamaBaseTool

        if not isinstance(tool, LlamaBaseTool):
            raise TypeError(f"LlamaIndexTool.from_tool needs a llama_index.core.tools.BaseTool, got {type(tool).__name__}")
        meta = tool.metadata
        schema = meta.fn_schema.model_json_schema() if meta.fn_schema is not None else {"type": "object", "properties": {}}
        schema.pop("title", None)

        def call(**arguments: Any) -> Any:
            return _content(tool(**arguments))

        options: dict[str, Any] = {"result_as_answer": bool(getattr(meta, "return_direct", False)), **fields}
        return cls(name=meta.get_name(), description=meta.description, func=call, parameters=schema,
                   llama_index_tool=tool, **options)

    @classmethod
    def from_query_engine(cls, query_engine: Any, name: str | None = None, description: str | None = None,
                          return_direct: bool = False, **fields: Any) -> LlamaIndexTool:
        """Wrap a query engine: the model gives ``input`` (the question) and reads the engine's answer."""
        _require()
        from llama_index.core.tools import QueryEngineTool

        tool = QueryEngineTool.from_defaults(
            query_engine,
            name=name or "query_engine",
            description=description or "Useful for answering questions about the indexed documents.",
            return_direct=return_direct,
        )
        return cls.from_tool(tool, **fields)
