"""Every crewai_tools 1.15.30 tool crewgraph has: CrewAI's name, arguments (names, types, required) and variables.

``data/crewai-tools-1.15.30.json`` is CrewAI's toolkit as data (copied from the
shared API extract): for each tool its default ``name``, its argument schema
and the environment variables it declares. A tool present in
``crewgraph.toolkit`` must match it; ``KNOWN_GAPS`` lists the ones still being
fixed (each entry says what differs) and must only shrink.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import crewgraph.toolkit as toolkit

DATA = json.loads((Path(__file__).parent / "data" / "crewai-tools-1.15.30.json").read_text())["tools"]
TOOLS = sorted(name for name, spec in DATA.items() if spec.get("kind") == "tool")

KNOWN_GAPS: dict[str, str] = {}

NOT_PROVIDED = ("CrewaiPlatformTools", "EnterpriseActionTool", "GenerateCrewaiAutomationTool",
                "InvokeCrewAIAutomationTool")
"""CrewAI's hosted-platform tools: importing one is an ImportError that says why (docs/porting.md)."""

UNREAD_VARS: dict[tuple[str, str], str] = {
    ("BrowserbaseLoadTool", "BROWSERBASE_PROJECT_ID"): "Browserbase's Fetch API needs only the key",
    ("MongoDBVectorSearchTool", "BROWSERBASE_API_KEY"): "CrewAI declares Browserbase's variables for MongoDB (a slip)",
    ("MongoDBVectorSearchTool", "BROWSERBASE_PROJECT_ID"): "CrewAI declares Browserbase's variables for MongoDB",
}
"""Variables CrewAI declares that crewgraph's tool deliberately does not read, and why."""


def _present(name: str) -> type | None:
    """The tool, or None when it is deliberately absent: importing it is an ImportError saying why.

    A name that is neither there nor deliberately absent fails the test (an AttributeError).
    """
    try:
        return getattr(toolkit, name)  # type: ignore[no-any-return]
    except ImportError as exc:
        assert f"does not provide {name}" in str(exc) and len(str(exc)) > 80, f"{name}: the ImportError must say why"
        return None


def _type_text(annotation: Any) -> str:
    """The annotation spelled as CrewAI's data spells it (``<class 'str'>``, ``int | None``...)."""
    text = repr(annotation) if not isinstance(annotation, type) else f"<class '{annotation.__name__}'>"
    return re.sub(r"\btyping\.", "", text)


def _same_type(ours: Any, theirs: str) -> bool:
    mine = _type_text(ours)
    if mine.startswith(theirs) or theirs.startswith(mine):
        return True
    # the same union written two ways: Optional[X] / X | None, Union[A, B] / A | B
    args = {_type_text(a) for a in typing.get_args(ours)} if typing.get_args(ours) else {mine}
    spelled = {part.strip() for part in re.split(r"\s*\|\s*", theirs)}
    return bool(args) and args == spelled


def _schema(cls: type) -> type[BaseModel]:
    default = cls.model_fields["args_schema"].default  # type: ignore[attr-defined]
    assert isinstance(default, type) and issubclass(default, BaseModel), f"{cls.__name__} has no args_schema class"
    return default


@pytest.mark.parametrize("name", TOOLS)
def test_tool_matches_crewai(name: str) -> None:
    cls = _present(name)
    if cls is None:
        pytest.skip(f"{name} is deliberately absent (its ImportError says why)")
    if name in KNOWN_GAPS:
        pytest.xfail(KNOWN_GAPS[name])
    spec = DATA[name]
    if spec.get("name"):
        assert cls.model_fields["name"].default == spec["name"]  # type: ignore[attr-defined]
    if spec.get("args"):
        fields = _schema(cls).model_fields
        assert set(fields) == set(spec["args"]), f"{name}: arguments differ from CrewAI's"
        for arg, want in spec["args"].items():
            assert fields[arg].is_required() == want["required"], f"{name}.{arg}: required differs"
            assert _same_type(fields[arg].annotation, want["type"]), (
                f"{name}.{arg}: {_type_text(fields[arg].annotation)} is not CrewAI's {want['type']}")
    declared = set(getattr(cls, "env_var_names", tuple)())
    for var in spec.get("env_vars", []):
        if (name, var["name"]) in UNREAD_VARS:
            continue
        assert var["name"] in declared, f"{name} does not read {var['name']}"


def test_the_data_lists_every_tool() -> None:
    assert len(TOOLS) > 100 and "TavilySearchTool" in TOOLS


@pytest.mark.parametrize("name", NOT_PROVIDED)
def test_hosted_platform_tools_raise_an_import_error_saying_why(name: str) -> None:
    assert name in DATA
    with pytest.raises(ImportError, match=rf"does not provide {name}: .*CrewAI AMP.*docs/porting.md"):
        exec(f"from crewgraph.toolkit import {name}", {})
