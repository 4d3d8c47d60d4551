"""The scheduler's dispatch units (``runtime._chains.task_chains``) on compiled crews."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from crewgraph import Agent, Crew, Process, Task
from crewgraph.compiler.crew_compiler import compile_crew
from crewgraph.runtime import Scheduler
from crewgraph.runtime._chains import task_chains
from crewgraph.testing import FakeLLM


class Out(BaseModel):
    a: str


def _chains(crew: Crew, restored: tuple[str, ...] = ()) -> dict[str, str]:
    graph = compile_crew(crew)
    plan = Scheduler(graph).plan
    return task_chains(graph.digraph, plan.preds, plan.succs, plan.join, plan.entry, restored)


def _crew(process: Any = Process.sequential) -> Crew:
    agent = Agent(role="W", goal="g", backstory="b", llm=FakeLLM(default='{"a": "x"}'))
    first = Task(name="first", description="d", expected_output="e", agent=agent, output_pydantic=Out,
                 guardrail=lambda o: (True, o))
    second = Task(name="second", description="d2", expected_output="e", agent=agent)
    return Crew(agents=[agent], tasks=[first, second], process=process)


def test_a_tasks_step_conversion_and_guardrail_form_one_chain_and_tasks_do_not_chain() -> None:
    assert _chains(_crew()) == {
        "t1_first.agent": "t1_first.convert",
        "t1_first.convert": "t1_first.guardrail1",
    }  # the second task's step follows the first task's guardrail, but is another task


def test_a_node_restored_from_a_checkpoint_ends_the_chain_before_it() -> None:
    assert _chains(_crew(), restored=("t1_first.guardrail1",)) == {"t1_first.agent": "t1_first.convert"}
