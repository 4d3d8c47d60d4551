"""The tools seed's agent-level snippets (``crewai`` read as ``crewgraph``).

Each builds its Agent/Task/Crew as the seed does and, with a scripted
FakeLLM, runs it so the tool path is exercised end to end. A test skips,
saying why, while ``crewgraph.spec``, the Crew facade or ``crewgraph.flow``
is not importable yet. SerperDevTool/WebsiteSearchTool (hosted search APIs)
are left out of the first snippet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

Need = Callable[..., ModuleType]


def _async_custom_tool_class() -> type:
    from crewgraph.tools import BaseTool

    class AsyncCustomTool(BaseTool):
        name: str = "async_custom_tool"
        description: str = "An asynchronous custom tool"

        async def _run(self, query: str = "") -> str:
            """Asynchronously run the tool"""
            # Your async implementation here
            await asyncio.sleep(1)
            return f"Processed {query} asynchronously"

    return AsyncCustomTool


# --- agent-level snippets -------------------------------------------------------


def test_toolkit_crew_without_hosted_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: Any, need: Need
) -> None:
    """The first snippet minus SerperDevTool/WebsiteSearchTool (hosted search APIs): the
    writer lists ./blog-posts, reads a post and its answer lands in output_file."""
    spec = need("crewgraph.spec")
    crew_module = need("crewgraph.crew")
    from crewgraph.testing import FakeToolCall
    from crewgraph.toolkit import DirectoryReadTool, FileReadTool

    monkeypatch.chdir(tmp_path)
    docs_tool = DirectoryReadTool(directory="./blog-posts")
    file_tool = FileReadTool()
    assert "Directory not found" in str(docs_tool.run())  # nothing there yet
    (tmp_path / "blog-posts").mkdir()
    (tmp_path / "blog-posts" / "old_post.md").write_text("# Agents are here\n", encoding="utf-8")

    llm = fake_llm(
        [
            FakeToolCall(docs_tool.to_spec().name, {}),
            FakeToolCall(file_tool.to_spec().name, {"file_path": "blog-posts/old_post.md"}),
            "# The AI industry\n\nFour paragraphs.",
        ]
    )
    writer = spec.Agent(
        role="Content Writer",
        goal="Craft engaging blog posts about the AI industry",
        backstory="A skilled writer with a passion for technology.",
        tools=[docs_tool, file_tool],
        verbose=True,
        llm=llm,
    )
    write = spec.Task(
        description="Write an engaging blog post about the AI industry, based on the research analyst\'s summary. Draw inspiration from the latest blog posts in the directory.",
        expected_output="A 4-paragraph blog post formatted in markdown, with engaging, informative, and accessible content, avoiding complex jargon.",
        agent=writer,
        output_file="blog-posts/new_post.md",  # The final blog post will be saved here
    )
    crew = crew_module.Crew(agents=[writer], tasks=[write], verbose=False)
    result = crew.kickoff()

    assert result.raw.startswith("# The AI industry")
    tool_messages = [m["content"] for m in llm.calls[-1].messages if m.get("role") == "tool"]
    assert tool_messages == ["File paths: \n- blog-posts/old_post.md", "# Agents are here\n"]
    assert (tmp_path / "blog-posts" / "new_post.md").read_text(encoding="utf-8").startswith("# The AI")


def _multiplication_setup() -> tuple[Any, Any]:
    from crewgraph.tools import tool

    @tool
    def multiplication_tool(first_number: int, second_number: int) -> str:
        """Useful for when you need to multiply two numbers together."""
        return first_number * second_number

    def cache_func(args, result):  # type: ignore[no-untyped-def]
        # In this case, we only cache the result if it's a multiple of 2
        cache = result % 2 == 0
        return cache

    multiplication_tool.cache_function = cache_func
    return multiplication_tool, cache_func


def test_custom_cache_function_in_a_crew(fake_llm: Any, need: Need) -> None:
    spec = need("crewgraph.spec")
    crew_module = need("crewgraph.crew")
    from crewgraph.testing import FakeToolCall

    multiplication_tool, _ = _multiplication_setup()
    llm = fake_llm(
        [
            FakeToolCall("multiplication_tool", {"first_number": 2, "second_number": 3}),
            FakeToolCall("multiplication_tool", {"first_number": 2, "second_number": 3}),
            FakeToolCall("multiplication_tool", {"first_number": 3, "second_number": 3}),
            FakeToolCall("multiplication_tool", {"first_number": 3, "second_number": 3}),
            "2 x 3 = 6 and 3 x 3 = 9",
        ]
    )
    writer1 = spec.Agent(
        role="Writer",
        goal="You write lessons of math for kids.",
        backstory="You're an expert in writing and you love to teach kids but you know nothing of math.",
        tools=[multiplication_tool],
        allow_delegation=False,
        llm=llm,
    )
    task = spec.Task(description="Write a lesson on 2x3 and 3x3.", expected_output="A lesson.", agent=writer1)
    result = crew_module.Crew(agents=[writer1], tasks=[task], cache=True).kickoff()
    assert result.raw == "2 x 3 = 6 and 3 x 3 = 9"
    # 6 is cached (even), so only 3 of the 4 calls actually ran the function
    assert multiplication_tool.current_usage_count == 3
    tool_messages = [m["content"] for m in llm.calls[-1].messages if m.get("role") == "tool"]
    # The cached repeat reaches the model with a reminder that it already made this call (a
    # deliberate difference from CrewAI, see docs/porting.md); the uncached one ran again.
    assert tool_messages[0] == "6" and tool_messages[2] == "9"
    assert tool_messages[3].startswith("9\n(You already made this exact call")  # ran again, not cached
    assert tool_messages[1].startswith("You already called multiplication_tool") and "\n6\n" in tool_messages[1]


def _slack_tool(payloads: list[dict[str, Any]]) -> Any:

    from crewgraph.tools import BaseTool
    from crewgraph.tools.tool_failure import ToolFailure

    class _Slack:
        def post(self, channel: str, text: str) -> dict[str, Any]:
            return payloads.pop(0)

    slack = _Slack()

    class SendSlackMessage(BaseTool):
        name: str = "send_slack_message"
        description: str = "Post a message to a Slack channel."

        def _run(self, channel: str, text: str) -> Any:
            payload = slack.post(channel=channel, text=text)
            if not payload["ok"]:
                return ToolFailure(
                    message=f"Slack rejected the message: {payload['error']}",
                    code=payload["error"],
                    retryable=payload["error"] == "rate_limited",
                )
            return payload

    return SendSlackMessage


def _slack_crew(need: Need, fake_llm: Any, task_policy: Any, payloads: list[dict[str, Any]]) -> Any:
    spec = need("crewgraph.spec")
    crew_module = need("crewgraph.crew")
    from crewgraph.testing import FakeToolCall
    from crewgraph.tools.tool_failure import ToolFailurePolicy

    SendSlackMessage = _slack_tool(payloads)
    llm = fake_llm(
        [FakeToolCall("send_slack_message", {"channel": "#engineering", "text": "report"}), "Could not post."]
    )
    agent = spec.Agent(
        role="Slack Messenger",
        goal="Post the report to Slack",
        backstory="...",
        tools=[SendSlackMessage()],
        tool_failure_policy=ToolFailurePolicy.WARN,
        llm=llm,
    )
    # Tighten a single high-stakes task without changing the agent.
    task = spec.Task(
        description="Post the final report to #engineering",
        expected_output="Confirmation the message was posted",
        agent=agent,
        tool_failure_policy=task_policy,
    )
    # Or set a baseline once for every agent in the crew.
    return crew_module.Crew(agents=[agent], tasks=[task], tool_failure_policy=ToolFailurePolicy.WARN)


def test_reported_failure_is_inspectable_on_the_output(
    fake_llm: Any, clean_bus: None, capsys: pytest.CaptureFixture[str], need: Need
) -> None:
    from crewgraph.events import ToolFailureDetectedEvent
    from crewgraph.events.event_bus import crewgraph_event_bus
    from crewgraph.tools.tool_failure import ToolFailureReason

    @crewgraph_event_bus.on(ToolFailureDetectedEvent)
    def on_tool_failure(source, event):  # type: ignore[no-untyped-def]
        print(f"{event.tool_name} failed: {event.failure.message} ({event.policy})")

    crew = _slack_crew(need, fake_llm, None, [{"ok": False, "error": "channel_not_found"}])
    result = crew.kickoff()

    assert result.has_tool_failures
    for record in result.tool_failures:
        print(record.tool_name)  # "send_slack_message"
        print(record.failure.code)  # "channel_not_found"
        print(record.failure.reason)  # ToolFailureReason.TOOL_REPORTED
        print(record.summary())
    record = result.tool_failures[0]
    assert record.failure.reason is ToolFailureReason.TOOL_REPORTED
    out = capsys.readouterr().out.splitlines()
    assert "send_slack_message failed: Slack rejected the message: channel_not_found (warn)" in out
    assert out[-4:-1] == ["send_slack_message", "channel_not_found", "tool_reported"]
    assert result.tasks_output[0].has_tool_failures


def test_raise_policy_on_the_task_aborts_the_crew(fake_llm: Any, clean_bus: None, need: Need) -> None:
    from crewgraph.errors import CrewGraphError, ToolExecutionFailedError
    from crewgraph.events import ToolFailureDetectedEvent
    from crewgraph.events.event_bus import crewgraph_event_bus
    from crewgraph.tools.tool_failure import ToolFailurePolicy

    seen: list[str] = []
    crewgraph_event_bus.on(ToolFailureDetectedEvent)(lambda source, event: seen.append(event.policy))
    crew = _slack_crew(need, fake_llm, ToolFailurePolicy.RAISE, [{"ok": False, "error": "channel_not_found"}])
    with pytest.raises(CrewGraphError) as info:
        crew.kickoff()
    error = info.value
    while not isinstance(error, ToolExecutionFailedError) and error.__cause__ is not None:
        error = error.__cause__  # type: ignore[assignment]
    assert isinstance(error, ToolExecutionFailedError)
    assert error.record.failure.code == "channel_not_found"
    assert seen == ["raise"]  # the event goes out before the abort


def test_retryable_slack_failure_is_retried_before_the_model_sees_it(fake_llm: Any, need: Need) -> None:
    payloads = [{"ok": False, "error": "rate_limited"}, {"ok": True, "ts": "1"}]
    crew = _slack_crew(need, fake_llm, None, payloads)
    result = crew.kickoff()
    assert not result.has_tool_failures
    assert payloads == []


def test_async_tools_in_a_crew(fake_llm: Any, fast_sleep: None, need: Need) -> None:
    """The "using async tools" snippet, completed: the seed's Agent lacks goal/backstory and
    names an undefined ``async_custom_tool``; here it gets both and the crew runs, sync and async."""
    spec = need("crewgraph.spec")
    crew_module = need("crewgraph.crew")
    from crewgraph.testing import FakeToolCall

    async_custom_tool = _async_custom_tool_class()()
    llm = fake_llm([FakeToolCall("async_custom_tool", {"query": "news"}), "done"] * 2)
    agent = spec.Agent(role="researcher", goal="Research", backstory="Curious.", tools=[async_custom_tool], llm=llm)
    task = spec.Task(description="Research news", expected_output="A summary", agent=agent)
    crew = crew_module.Crew(agents=[agent], tasks=[task])
    assert crew.kickoff().raw == "done"
    result = asyncio.run(crew.kickoff_async())
    assert result.raw == "done"
    tool_messages = [m["content"] for m in llm.calls[-1].messages if m.get("role") == "tool"]
    assert tool_messages == ["Processed news asynchronously"]


def test_async_tools_in_a_flow(fake_llm: Any, fast_sleep: None, need: Need) -> None:
    """The seed's Flow half of "using async tools" (its Crew gets the task it lacks)."""
    spec = need("crewgraph.spec")
    crew_module = need("crewgraph.crew")
    flow_module = need("crewgraph.flow", "Flow", "start")
    from crewgraph.testing import FakeToolCall

    Flow, start = flow_module.Flow, flow_module.start
    async_custom_tool = _async_custom_tool_class()()
    llm = fake_llm([FakeToolCall("async_custom_tool", {"query": "flows"}), "flow done"])
    agent = spec.Agent(role="researcher", goal="Research", backstory="Curious.", tools=[async_custom_tool], llm=llm)
    task = spec.Task(description="Research flows", expected_output="A summary", agent=agent)

    class MyFlow(Flow):  # type: ignore[misc, valid-type]
        @start()
        async def begin(self):  # type: ignore[no-untyped-def]
            crew = crew_module.Crew(agents=[agent], tasks=[task])
            result = await crew.kickoff_async()
            return result

    result = MyFlow().kickoff()
    assert str(result) == "flow done"
