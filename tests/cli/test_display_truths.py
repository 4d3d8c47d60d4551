"""Small things a user notices: placeholders and YAML line breaks in progress lines, ``-q`` on
crews a flow starts, and labels that break between words."""

from __future__ import annotations

CREW = """
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM

a = Agent(role="{topic} Senior Analyst\\n", goal="g", backstory="b", llm=FakeLLM(default="done"), verbose=True)
crew = Crew(agents=[a], tasks=[Task(description="Study {topic} closely", expected_output="x", agent=a)])
"""

FLOW = """
from crewgraph import Agent, Crew, Task
from crewgraph.flow.flow import Flow, start
from crewgraph.testing import FakeLLM


class Loud(Flow):
    @start()
    def go(self):
        a = Agent(role="Writer", goal="g", backstory="b", llm=FakeLLM(default="poem"), verbose=True)
        crew = Crew(agents=[a], tasks=[Task(description="Write", expected_output="x", agent=a)], verbose=True)
        return crew.kickoff().raw
"""


def test_progress_lines_fill_placeholders_and_keep_roles_on_one_line(cli, write_module) -> None:
    mod = write_module(CREW)
    result = cli("run", f"{mod}:crew", "-i", "topic=bees", "--no-checkpoint")
    assert result.exit_code == 0, result.output
    assert "agent: bees Senior Analyst" in result.stderr
    assert "Study bees closely" in result.stderr
    assert "{topic}" not in result.stderr and "\\n" not in result.stderr


def test_quiet_silences_the_crews_a_flow_starts(cli, write_module) -> None:
    mod = write_module(FLOW)
    loud = cli("run", mod, "--no-checkpoint")
    assert loud.exit_code == 0, loud.output
    assert "Crew" in loud.stderr  # the verbose crew reports itself without -q
    quiet = cli("run", mod, "-q", "--no-checkpoint")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout == "poem\n" and quiet.stderr == ""


def test_labels_break_between_words() -> None:
    from crewgraph.export._dot import label_lines

    lines = label_lines("research_task_for_the_team writes a report", width=12, max_len=60)
    assert lines == ["research_task_for_the_team", "writes a", "report"]
    cut = label_lines("one two three four five six seven", width=40, max_len=20)
    assert cut == ["one two three four…"]


FAILING_TOOL = """
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("broken")
def broken(query: str) -> str:
    \"\"\"Always fails.\"\"\"
    raise RuntimeError("service unavailable")


llm = FakeLLM([FakeToolCall("broken", {"query": "x"}), "answer anyway"])
a = Agent(role="{topic} researcher", goal="g", backstory="b", llm=llm, tools=[broken])
crew = Crew(agents=[a], tasks=[Task(description="look up {topic}", expected_output="e", agent=a)])
"""


def test_a_handled_tool_failure_is_not_a_green_tick(cli, write_module) -> None:
    mod = write_module(FAILING_TOOL)
    result = cli("run", f"{mod}:crew", "-i", "topic=owls", "--no-checkpoint")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.stderr.splitlines() if "broken()" in x)
    assert "⚠" in line and "failed (handled" in line and "service unavailable" in line, line
    assert "task 'look up owls', agent 'owls researcher'" in line  # filled in, not {topic}
    assert "1 warning" in result.stderr  # the step whose every call failed, in the summary
