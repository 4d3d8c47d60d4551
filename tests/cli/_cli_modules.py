"""Source of small user modules the CLI tests import (written to tmp_path per test)."""

CREW_MODULE = """
from crewgraph import Agent, Crew, Task
from crewgraph.project import CrewBase, agent, crew, task
from crewgraph.testing import FakeLLM


def build(replies=("notes on {topic}", "post")):
    llm = FakeLLM(list(replies), default="more")
    a = Agent(role="Writer", goal="Write", backstory="b", llm=llm)
    t1 = Task(name="research", description="Research {topic}", expected_output="notes", agent=a)
    t2 = Task(name="write", description="Write about {topic}", expected_output="post", agent=a)
    return Crew(name="writer_crew", agents=[a], tasks=[t1, t2])


my_crew = build()


def make_crew():
    return build()


@CrewBase
class Project:
    agents_config = None
    tasks_config = None

    @agent
    def solo(self) -> Agent:
        return Agent(role="Solo", goal="g", backstory="b", llm=FakeLLM(default="solo answer"))

    @task
    def only(self) -> Task:
        return Task(description="Do {topic}", expected_output="x", agent=self.solo())

    @crew
    def crew(self) -> Crew:
        return Crew(name="solo_crew", agents=self.agents, tasks=self.tasks)
"""

FLOW_MODULE = """
from crewgraph.flow import Flow, listen, start


class Greeting(Flow):
    @start()
    def begin(self):
        return "hello"

    @listen(begin)
    def shout(self, text):
        return text.upper() + " " + str(self.state.get("name", "nobody"))
"""
