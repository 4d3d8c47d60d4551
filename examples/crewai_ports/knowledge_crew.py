"""A crew that answers from its knowledge sources, as CrewAI's knowledge docs set one up.

The embedder is crewgraph's default (local, no API key). Offline:
``CREWGRAPH_LLM=fake python knowledge_crew.py``.
"""

from crewgraph import Agent, Crew, Process, Task
from crewgraph.knowledge.source.string_knowledge_source import StringKnowledgeSource

content = (
    "Users name: John. He is 30 years old and lives in San Francisco. "
    "He works as a marine biologist and studies kelp forests along the Pacific coast."
)
string_source = StringKnowledgeSource(content=content)

agent = Agent(
    role="About User",
    goal="You know everything about the user.",
    backstory="You are a master at understanding people and their preferences.",
    verbose=True,
    allow_delegation=False,
)
task = Task(
    description="Answer the following questions about the user: {question}",
    expected_output="An answer to the question.",
    agent=agent,
)
crew = Crew(
    agents=[agent],
    tasks=[task],
    verbose=True,
    process=Process.sequential,
    knowledge_sources=[string_source],
)

if __name__ == "__main__":
    print(crew.kickoff(inputs={"question": "Where does John live and what does he study?"}).raw)
