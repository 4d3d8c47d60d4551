"""A real crew run with many tool calls (FakeLLM scripts), for layout and collapse tests."""

from __future__ import annotations

from typing import Any

from crewgraph import Agent, Crew, Task
from crewgraph.graph import RunGraph
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeToolCall
from crewgraph.tools import tool


@tool("search_web")
def search_web(query: str, max_results: int = 5) -> str:
    """Search the web."""
    return f"results for {query}"


@tool("read_file")
def read_file(path: str) -> str:
    """Read a file."""
    if "missing" in path:
        raise FileNotFoundError(path)
    return f"text of {path}"


@tool("calculator")
def calculator(expression: str) -> str:
    """Evaluate arithmetic."""
    return "4"


def _script(i: int, parallel: bool) -> list[Any]:
    """Five tool calls for task ``i``: three searches, a file read, a calculation."""
    searches = [FakeToolCall("search_web", {"query": f"topic {i} angle {k}", "max_results": 3}) for k in range(3)]
    path = f"notes/missing_{i}.md" if i == 3 else f"notes/task_{i}.md"
    rest = [FakeToolCall("read_file", {"path": path}), FakeToolCall("calculator", {"expression": f"{i}+2"})]
    if parallel:
        return [searches, *rest, f"answer {i}"]
    return [*searches, *rest, f"answer {i}"]


def big_crew(tasks: int = 10, *, parallel: bool = True) -> Crew:
    """``tasks`` sequential tasks, each agent making five tool calls (``tasks * 5`` in all)."""
    agents, todo = [], []
    for i in range(tasks):
        agent = Agent(
            role=f"Analyst {i}",
            goal="Find facts",
            backstory="Careful.",
            tools=[search_web, read_file, calculator],
            llm=FakeLLM(_script(i, parallel)),
        )
        agents.append(agent)
        todo.append(
            Task(name=f"research step {i}", description=f"Research part {i}", expected_output="facts", agent=agent)
        )
    return Crew(agents=agents, tasks=todo)


def big_run(tasks: int = 10, *, parallel: bool = True) -> RunGraph:
    out = big_crew(tasks, parallel=parallel).kickoff()
    graph: RunGraph = out.graph  # type: ignore[union-attr]
    return graph
