"""A tool whose optional package is missing fails ``crew.compile()`` naming the tool and the
extra, before a token is spent (as a missing API key does)."""

from __future__ import annotations

import io
import sys

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import CompileError
from crewgraph.testing import FakeLLM
from crewgraph.toolkit import ScrapeWebsiteTool, WebsiteSearchTool


def _crew(*tools: object) -> Crew:
    agent = Agent(role="Reader", goal="g", backstory="b", tools=list(tools), llm=FakeLLM(default="x"))
    return Crew(agents=[agent], tasks=[Task(description="Read", expected_output="x", agent=agent)])


def test_a_missing_extra_fails_compile_naming_tool_and_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "selectolax", None)  # as if `crewgraph[tools]` were not installed
    with pytest.raises(CompileError) as caught:
        _crew(ScrapeWebsiteTool(), WebsiteSearchTool()).compile()
    problems = caught.value.problems
    assert any(
        p.endswith("tool 'Read website content': ScrapeWebsiteTool needs the optional package 'selectolax': "
                   "pip install 'crewgraph[tools]'") for p in problems
    ), problems
    assert any("WebsiteSearchTool needs the optional package 'selectolax'" in p for p in problems), problems


def test_with_the_extra_installed_it_compiles() -> None:
    assert _crew(ScrapeWebsiteTool()).compile() is not None


def test_the_console_keeps_the_extra_in_a_hint() -> None:
    from rich.console import Console

    from crewgraph.events.console import ConsoleListener
    from crewgraph.events.tool_events import ToolFailureDetectedEvent
    from crewgraph.tools import ToolFailure

    out = io.StringIO()
    listener = ConsoleListener(console=Console(file=out, width=200, color_system=None))
    try:
        failure = ToolFailure(message="Reading web pages needs 'selectolax': pip install 'crewgraph[tools]'")
        listener._tool_failure(ToolFailureDetectedEvent(tool_name="scrape", failure=failure, policy="warn"))
    finally:
        listener.close()
    assert "pip install 'crewgraph[tools]'" in out.getvalue()
