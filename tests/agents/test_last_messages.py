"""``Agent.last_messages``: the conversation of the agent's last finished task (CrewAI's)."""

from __future__ import annotations

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM


def _texts(messages: list[object]) -> list[str]:
    return [str(dict(m)["content"]) for m in messages]  # type: ignore[call-overload]


def test_last_messages_follow_the_agents_tasks_in_a_crew_and_alone() -> None:
    llm = FakeLLM(["first answer", "second answer", "alone"])
    writer = Agent(role="Writer", goal="Write", backstory="Writes.", llm=llm)
    other = Agent(role="Critic", goal="Judge", backstory="Judges.", llm=FakeLLM(["a verdict"]))
    assert writer.last_messages == []
    first = Task(description="Write the intro", expected_output="An intro", agent=writer)
    second = Task(description="Write the end", expected_output="An end", agent=writer)
    judged = Task(description="Judge it", expected_output="A verdict", agent=other)
    out = Crew(agents=[writer, other], tasks=[first, second, judged]).kickoff()
    assert writer.last_messages == list(out.tasks_output[1].messages)
    texts = _texts(writer.last_messages)
    assert "Write the end" in texts[1] and texts[-1] == "second answer"
    assert _texts(other.last_messages)[-1] == "a verdict"

    writer.execute_task(Task(description="Write alone", expected_output="Text", agent=writer))
    assert _texts(writer.last_messages)[-1] == "alone" and "Write alone" in _texts(writer.last_messages)[1]
    writer.last_messages.clear()  # a copy: the agent's own list is not changed
    assert writer.last_messages


def test_a_lite_agents_messages_and_iterations_are_its_last_kickoffs() -> None:
    from crewgraph.lite_agent import LiteAgent
    from crewgraph.testing.fake_llm import FakeToolCall
    from crewgraph.tools import tool

    @tool("lookup")
    def lookup(word: str) -> str:
        """Look a word up."""
        return f"{word}: a small insect"

    agent = LiteAgent(role="Reader", goal="Read", backstory="Reads.", tools=[lookup],
                      llm=FakeLLM([FakeToolCall("lookup", {"word": "ant"}), "An ant is a small insect.", "Hi."]))
    assert agent.messages == [] and agent.iterations == 0
    assert agent.kickoff("What is an ant?").raw == "An ant is a small insect."
    assert [dict(m)["role"] for m in agent.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert agent.iterations == 2  # the tool-call turn and the answer
    agent.kickoff("Say hi")
    assert agent.iterations == 1 and _texts(agent.messages)[-1] == "Hi."
