"""A tool's JSON Schema is built once per schema class, not on every model turn."""

from __future__ import annotations

from pydantic import BaseModel

from crewgraph.tools import BaseTool, tool
from crewgraph.tools._schema import spec_parameters


@tool("lookup")
def lookup(query: str, limit: int = 3) -> str:
    """Look something up."""
    return query


def test_same_schema_class_same_parameters_object() -> None:
    first = spec_parameters(lookup.args_schema)
    assert spec_parameters(lookup.args_schema) is first
    assert lookup.to_spec().parameters == first
    assert first["properties"]["query"] == {"type": "string"}
    assert "title" not in first


def test_another_args_schema_gets_its_own_parameters() -> None:
    class Narrow(BaseModel):
        query: str

    class Tool(BaseTool):
        name: str = "narrow"
        description: str = "narrow lookups"

        def _run(self, query: str, limit: int = 3) -> str:
            return query

    wide = Tool()
    narrow = Tool(args_schema=Narrow)
    assert set(spec_parameters(wide.args_schema)["properties"]) == {"query", "limit"}
    assert set(narrow.to_spec().parameters["properties"]) == {"query"}
