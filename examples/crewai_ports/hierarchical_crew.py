"""A hierarchical crew, as CrewAI's docs write one (only the imports are crewgraph's).

A manager model plans the work and delegates each task to the agent best suited
for it. Run it offline on the demo model: ``CREWGRAPH_LLM=fake python hierarchical_crew.py``.
"""

from crewgraph import LLM, Agent, Crew, Process, Task

researcher = Agent(
    role="Researcher",
    goal="Find the facts about {topic}",
    backstory="You dig up facts and check them twice.",
    allow_delegation=False,
)
writer = Agent(
    role="Writer",
    goal="Write a short, clear article about {topic}",
    backstory="You turn notes into prose people enjoy reading.",
    allow_delegation=False,
)

research = Task(
    description="Research the three most important facts about {topic}.",
    expected_output="Three facts, one per line.",
)
article = Task(
    description="Write a four-paragraph article about {topic} from the research.",
    expected_output="A four-paragraph article.",
)

crew = Crew(
    agents=[researcher, writer],
    tasks=[research, article],
    process=Process.hierarchical,
    manager_llm=LLM(model="gpt-4o"),
)

if __name__ == "__main__":
    result = crew.kickoff(inputs={"topic": "tide pools"})
    print(result.raw)
