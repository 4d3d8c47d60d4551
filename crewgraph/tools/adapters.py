"""Adapters: other people's tools as BaseTools.

LangChain tools are recognised by shape (``name``, ``description``, an
argument schema, and ``invoke``/``run``/``_run``) so LangChain never has to be
installed or imported. Any callable plus a JSON Schema of its arguments (an
MCP tool listing, an OpenAPI operation) becomes a tool with
:func:`from_function_schema`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from crewgraph.tools._schema import json_schema_model
from crewgraph.tools.base_tool import BaseTool

__all__ = [
    "JSONSchemaTool",
    "LangChainToolAdapter",
    "from_function_schema",
    "from_langchain",
    "looks_like_langchain_tool",
]


class JSONSchemaTool(BaseTool):
    """A callable whose arguments are described by a JSON Schema object.

    The model is shown ``parameters`` exactly as given; calls are validated by
    a model derived from it, then ``func(**arguments)`` runs (sync or async).
    """

    func: Callable[..., Any] = Field(description="Called with the arguments as keywords")
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def model_post_init(self, __context: Any) -> None:
        from crewgraph.tools.base_tool import _ArgsSchemaPlaceholder

        if self.args_schema is _ArgsSchemaPlaceholder:
            self.args_schema = json_schema_model(self.parameters, self.name)
        super().model_post_init(__context)

    def _signature_target(self) -> Callable[..., Any]:
        return self.func

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def _spec_parameters(self) -> dict[str, Any]:
        params = dict(self.parameters)
        params.setdefault("type", "object")
        params.setdefault("properties", {})
        return params


def from_function_schema(
    func: Callable[..., Any],
    parameters: dict[str, Any],
    *,
    name: str | None = None,
    description: str | None = None,
    **fields: Any,
) -> JSONSchemaTool:
    """Wrap any callable plus the JSON Schema of its keyword arguments as a tool."""
    tool_name = name or getattr(func, "__name__", None) or type(func).__name__
    text = description if description is not None else (inspect.getdoc(func) or "")
    if not text.strip():
        raise ValueError(f"tool {tool_name!r} needs a description (pass description= or a docstring)")
    return JSONSchemaTool(name=tool_name, description=text.strip(), func=func, parameters=parameters, **fields)


def looks_like_langchain_tool(obj: Any) -> bool:
    """True for objects shaped like a LangChain tool (and not already a BaseTool)."""
    if isinstance(obj, BaseTool):
        return False
    has_text = isinstance(getattr(obj, "name", None), str) and isinstance(
        getattr(obj, "description", None), str
    )
    return has_text and any(callable(getattr(obj, m, None)) for m in ("invoke", "run", "_run"))


def _langchain_parameters(obj: Any) -> tuple[dict[str, Any], type[BaseModel] | None]:
    """The tool's argument JSON Schema, and its pydantic v2 model when it has one."""
    schema = getattr(obj, "args_schema", None)
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema(), schema
    if isinstance(schema, dict):
        return schema, None
    legacy = getattr(schema, "schema", None)
    if schema is not None and callable(legacy):  # a pydantic v1 model
        return dict(legacy()), None
    args = getattr(obj, "args", None)
    if isinstance(args, dict):
        return {"type": "object", "properties": args, "required": list(args)}, None
    return {"type": "object", "properties": {}}, None


class LangChainToolAdapter(JSONSchemaTool):
    """A LangChain-style tool behind the BaseTool interface (``original`` is the wrapped tool)."""

    original: Any = Field(default=None, exclude=True)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            return self.func(*args)
        plain = {k: v.model_dump() if isinstance(v, BaseModel) else v for k, v in kwargs.items()}
        return self.func(plain)


def _langchain_caller(obj: Any) -> Callable[..., Any]:
    invoke = getattr(obj, "invoke", None)
    if callable(invoke):
        return invoke
    run = getattr(obj, "run", None)
    if callable(run):
        return run
    private_run = obj._run

    def call(arguments: dict[str, Any]) -> Any:
        return private_run(**arguments)

    return call


def from_langchain(obj: Any, **fields: Any) -> BaseTool:
    """Wrap a LangChain-style tool; its ``return_direct`` becomes ``result_as_answer``."""
    if isinstance(obj, BaseTool):
        return obj
    if not looks_like_langchain_tool(obj):
        raise TypeError(
            f"{type(obj).__name__} does not look like a LangChain tool "
            "(needs name, description and invoke/run/_run)"
        )
    parameters, model = _langchain_parameters(obj)
    options: dict[str, Any] = {"result_as_answer": bool(getattr(obj, "return_direct", False))}
    if model is not None:
        options["args_schema"] = model
    options.update(fields)
    return LangChainToolAdapter(
        name=obj.name,
        description=obj.description,
        func=_langchain_caller(obj),
        parameters=parameters,
        original=obj,
        **options,
    )
