"""A flow with a router loop: write, evaluate, retry until it passes or runs out of tries.

The shape of CrewAI's self-evaluation-loop example, with only the imports renamed.
Offline: ``CREWGRAPH_LLM=fake python router_flow.py``.
"""

from pydantic import BaseModel

from crewgraph import Agent, Crew, Task
from crewgraph.flow.flow import Flow, listen, router, start


class Verdict(BaseModel):
    valid: bool
    feedback: str
    ideas: list[str]


class PostState(BaseModel):
    post: str = ""
    feedback: str = ""
    ideas: list[str] = []
    retry_count: int = 0
    valid: bool = False


def one_task_crew(role: str, description: str, output_pydantic: type[BaseModel] | None = None) -> Crew:
    agent = Agent(role=role, goal=f"Do the {role.lower()}'s job well", backstory=f"An experienced {role.lower()}.")
    task = Task(description=description, expected_output="The result.", agent=agent,
                output_pydantic=output_pydantic)
    return Crew(agents=[agent], tasks=[task])


class PostFlow(Flow[PostState]):
    @start("retry")
    def write_post(self):
        feedback = f" Fix this: {self.state.feedback}" if self.state.feedback else ""
        crew = one_task_crew("Writer", "Write a short post about kelp forests." + feedback)
        self.state.post = crew.kickoff().raw

    @router(write_post)
    def evaluate(self):
        if self.state.retry_count >= 2:
            return "max_retry_exceeded"
        crew = one_task_crew("Critic", f"Judge this post: {self.state.post}", output_pydantic=Verdict)
        verdict = crew.kickoff().pydantic
        self.state.valid = verdict.valid
        self.state.feedback = verdict.feedback
        self.state.ideas = verdict.ideas
        self.state.retry_count += 1
        return "complete" if verdict.valid and self.state.retry_count > 1 else "retry"

    @listen("complete")
    def publish(self):
        return f"published after {self.state.retry_count} rounds; ideas: {', '.join(self.state.ideas)}"

    @listen("max_retry_exceeded")
    def give_up(self):
        return f"gave up after {self.state.retry_count} rounds"


if __name__ == "__main__":
    print(PostFlow().kickoff())
