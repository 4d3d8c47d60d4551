from typing import List

from pydantic import BaseModel

from crewgraph import Agent, Crew, Process, Task
from crewgraph.agents.agent_builder.base_agent import BaseAgent
from crewgraph.project import CrewBase, agent, crew, task
from crewgraph.toolkit import DirectoryReadTool, FileReadTool

from research_crew.tools.custom_tool import KeywordTool


class Report(BaseModel):
    title: str
    summary: str
    key_points: List[str]


@CrewBase
class ResearchCrew:
    """ResearchCrew crew"""

    agents: List[BaseAgent]
    tasks: List[Task]

    @agent
    def researcher(self) -> Agent:
        return Agent(
            config=self.agents_config["researcher"],
            tools=[DirectoryReadTool(directory="notes"), FileReadTool(file_path="notes/kelp.md"), KeywordTool()],
            verbose=True,
        )

    @agent
    def reporting_analyst(self) -> Agent:
        return Agent(config=self.agents_config["reporting_analyst"], verbose=True)

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config["research_task"])

    @task
    def reporting_task(self) -> Task:
        return Task(config=self.tasks_config["reporting_task"], output_pydantic=Report, output_file="report.md")

    @crew
    def crew(self) -> Crew:
        """Creates the ResearchCrew crew"""
        return Crew(
            agents=self.agents,
            tasks=self.tasks,
            process=Process.sequential,
            verbose=True,
        )
