"""The sample project the @CrewBase tests write to disk."""

AGENTS = """\
researcher:
  role: "{topic} Senior Researcher"
  goal: Find the latest on {topic}
  backstory: Knows where to look.
  tools: [search]
writer:
  role: Writer
  goal: Write clearly about {topic}
  backstory: Plain words.
"""

TASKS = """\
research_task:
  description: Research {topic}
  expected_output: A list of facts
  agent: researcher
write_task:
  description: Write a post about {topic}
  expected_output: A short post
  agent: writer
  context: [research_task]
"""

MODULE = '''
from pydantic import BaseModel

from crewgraph import Agent, Crew, Process, Task
from crewgraph.project import (
    CrewBase, after_kickoff, agent, before_kickoff, callback, crew, llm, output_pydantic, task, tool,
)
from crewgraph.tools import tool as make_tool

CALLS = []


@make_tool("search")
def search_tool(query: str) -> str:
    """Search the web."""
    return "results for " + query


@CrewBase
class ResearchCrew:
    agents_config = "config/agents.yaml"
    tasks_config = "config/tasks.yaml"

    @output_pydantic
    class Post(BaseModel):
        title: str

    @tool
    def search(self):
        CALLS.append("search")
        return search_tool

    @callback
    def log_output(self):
        return lambda output: CALLS.append(("log", output.raw))

    @agent
    def researcher(self) -> Agent:
        CALLS.append("researcher")
        return Agent(config=self.agents_config["researcher"])

    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config["writer"], verbose=False)

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config["research_task"])

    @task
    def write_task(self) -> Task:
        return Task(config=self.tasks_config["write_task"])

    @before_kickoff
    def prepare(self, inputs):
        inputs["prepared"] = "yes"
        return inputs

    @after_kickoff
    def post_process(self, result):
        result.raw += " [post-processed]"
        return result

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
'''
