"""A crew with its own tools: a BaseTool subclass with an args_schema and a @tool function.

Written as CrewAI's "Create custom tools" guide writes them (only the imports are
crewgraph's). Offline: ``CREWGRAPH_LLM=fake python custom_tool_crew.py``.
"""

from pydantic import BaseModel, Field

from crewgraph import Agent, Crew, Task
from crewgraph.tools import BaseTool, tool


class WordCountInput(BaseModel):
    """Input schema for WordCountTool."""

    text: str = Field(..., description="The text to count the words of.")


class WordCountTool(BaseTool):
    name: str = "Word counter"
    description: str = "Counts the words of a text."
    args_schema: type[BaseModel] = WordCountInput

    def _run(self, text: str) -> str:
        return f"{len(text.split())} words"


@tool("Shout")
def shout(text: str) -> str:
    """Returns the text in capitals."""
    return text.upper()


editor = Agent(
    role="Editor",
    goal="Check the length and tone of {title}",
    backstory="A careful editor who measures before judging.",
    tools=[WordCountTool(), shout],
)
review = Task(
    description="Review the draft titled {title}: count its words and shout its title.",
    expected_output="A one-paragraph review that quotes the word count.",
    agent=editor,
)
crew = Crew(agents=[editor], tasks=[review], verbose=True)

if __name__ == "__main__":
    print(crew.kickoff(inputs={"title": "Tides of March"}).raw)
