"""CrewAI's event surface, listened to as CrewAI users do: a ``BaseEventListener`` subclass
whose ``setup_listeners(crewai_event_bus)`` registers handlers, then a real run.

Each new family is checked where crewgraph does the work: the tool-calling path (selection
and validation errors), the checkpoint store (write, prune, fork, restore), the context
window (summarization), memory recall, ``Agent.kickoff`` and flows; plus the lineage
(``parent_event_id`` / ``started_event_id``) and that nothing is built without a listener.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.events import (
    BaseEvent,
    BaseEventListener,
    CheckpointCompletedEvent,
    CheckpointForkCompletedEvent,
    CheckpointForkStartedEvent,
    CheckpointPrunedEvent,
    CheckpointRestoreCompletedEvent,
    CheckpointRestoreStartedEvent,
    CheckpointStartedEvent,
    CircularDependencyError,
    ContextWindowSummarizationCompletedEvent,
    ContextWindowSummarizationStartedEvent,
    CrewKickoffCompletedEvent,
    CrewKickoffStartedEvent,
    Depends,
    FlowCreatedEvent,
    FlowEvent,
    FlowFailedEvent,
    FlowFinishedEvent,
    LiteAgentExecutionCompletedEvent,
    LiteAgentExecutionErrorEvent,
    LiteAgentExecutionStartedEvent,
    LLMCallCompletedEvent,
    LLMCallStartedEvent,
    LLMCallType,
    MemoryRetrievalFailedEvent,
    MemoryRetrievalStartedEvent,
    TaskCompletedEvent,
    TaskStartedEvent,
    ToolSelectionErrorEvent,
    ToolUsageEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
    ToolValidateInputErrorEvent,
    crewai_event_bus,
)
from crewgraph.events.event_listener import EventListener, event_listener
from crewgraph.flow import Flow, start
from crewgraph.nodes._context_window import SUMMARY_PROMPT, estimate_tokens
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall
from crewgraph.tools import tool


@tool("echo")
def echo(text: str) -> str:
    """Repeat the text."""
    return text


class Recorder(BaseEventListener):
    """What a CrewAI user writes: handlers registered in ``setup_listeners``."""

    def __init__(self, *kinds: type[BaseEvent]) -> None:
        self.kinds = kinds
        self.events: list[BaseEvent] = []
        super().__init__()

    def setup_listeners(self, crewai_event_bus: Any) -> None:
        for kind in self.kinds:
            @crewai_event_bus.on(kind)
            def record(source: Any, event: BaseEvent) -> None:
                self.events.append(event)

    def of(self, kind: type[BaseEvent]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture(autouse=True)
def _own_handlers() -> Iterator[None]:
    with crewai_event_bus.scoped_handlers():
        yield


def _crew(llm: Any, **crew: Any) -> Crew:
    agent = Agent(role="Writer", goal="Write", backstory="Writes.", tools=[echo], llm=llm)
    task = Task(description="Say hi", expected_output="A greeting", agent=agent)
    return Crew(agents=[agent], tasks=[task], **crew)


def test_a_run_links_started_and_ending_events_and_their_parents() -> None:
    rec = Recorder(CrewKickoffStartedEvent, CrewKickoffCompletedEvent, TaskStartedEvent, TaskCompletedEvent,
                   LLMCallStartedEvent, LLMCallCompletedEvent, ToolUsageStartedEvent, ToolUsageFinishedEvent)
    crew = _crew(FakeLLM([FakeToolCall("echo", {"text": "hi"}), "hello"]))
    crew.kickoff()
    by_id = {e.event_id: e for e in rec.events}
    kickoff, = rec.of(CrewKickoffStartedEvent)
    done, = rec.of(CrewKickoffCompletedEvent)
    assert done.started_event_id == kickoff.event_id and done.crew is crew and kickoff.type == "crew_kickoff_started"
    task_started, = rec.of(TaskStartedEvent)
    task_done, = rec.of(TaskCompletedEvent)
    assert task_started.parent_event_id == kickoff.event_id
    assert task_done.started_event_id == task_started.event_id
    assert task_done.output.raw == "hello" and task_done.task is crew.tasks[0]  # CrewAI's TaskOutput
    assert task_done.task_id == str(crew.tasks[0].id) and task_done.task_name == "Say hi"
    starts, ends = rec.of(LLMCallStartedEvent), rec.of(LLMCallCompletedEvent)
    assert [e.started_event_id for e in ends] == [e.event_id for e in starts]
    assert [e.call_id for e in ends] == [e.call_id for e in starts] and len({e.call_id for e in starts}) == 2
    assert [e.call_type for e in ends] == [LLMCallType.TOOL_CALL, LLMCallType.LLM_CALL]
    assert ends[1].usage is not None and ends[1].usage["total_tokens"] == ends[1].total_tokens
    assert all(e.agent_role == "Writer" for e in starts)
    assert by_id[starts[0].parent_event_id].type in ("task_started", "agent_execution_started")
    tool_done, = rec.of(ToolUsageFinishedEvent)
    tool_started, = rec.of(ToolUsageStartedEvent)
    assert tool_done.started_event_id == tool_started.event_id
    assert tool_done.tool_class == "FunctionTool" or tool_done.tool_class.endswith("Tool")
    assert tool_done.started_at is not None and tool_done.finished_at >= tool_done.started_at
    assert tool_done.run_attempts >= 0 and tool_done.output == "hi"
    assert isinstance(task_done.to_json(exclude={"output"}), dict)
    assert task_done.to_json()["task"]["id"] == str(crew.tasks[0].id)  # a reference, not the object


def test_unknown_tools_and_refused_arguments_are_reported_as_crewai_does() -> None:
    rec = Recorder(ToolUsageEvent)
    llm = FakeLLM([FakeToolCall("missing", {}), FakeToolCall("echo", {"wrong": 1}), "done"])
    assert _crew(llm).kickoff().raw == "done"
    selection, = rec.of(ToolSelectionErrorEvent)
    assert selection.tool_name == "missing" and "does not exist" in str(selection.error)
    validation, = rec.of(ToolValidateInputErrorEvent)
    assert validation.tool_name == "echo" and validation.tool_args == {"wrong": 1} and "text" in str(validation.error)
    assert validation.type == "tool_validate_input_error" and validation.agent_role == "Writer"


def test_the_checkpoint_store_publishes_writes_prunes_forks_and_restores(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    rec = Recorder(CheckpointStartedEvent, CheckpointCompletedEvent, CheckpointPrunedEvent,
                   CheckpointForkStartedEvent, CheckpointForkCompletedEvent,
                   CheckpointRestoreStartedEvent, CheckpointRestoreCompletedEvent)
    first = _crew(FakeLLM(["one"]), name="ck", checkpoint=CheckpointConfig(path=db, keep_last=1)).kickoff()
    writes = rec.of(CheckpointCompletedEvent)
    assert writes and all(e.location == str(db) and e.provider == "sqlite" for e in writes)
    assert [e.started_event_id for e in writes] == [e.event_id for e in rec.of(CheckpointStartedEvent)]
    assert writes[0].checkpoint_id.startswith(f"{first.run_id}/") and writes[0].trigger
    assert not rec.of(CheckpointPrunedEvent)
    _crew(FakeLLM(["two"]), name="ck", checkpoint=CheckpointConfig(path=db, keep_last=1)).kickoff()
    pruned, = rec.of(CheckpointPrunedEvent)
    assert (pruned.removed_count, pruned.max_checkpoints) == (1, 1)

    crew = _crew(FakeLLM(["three"]), name="ck", checkpoint=CheckpointConfig(path=db))
    second = crew.kickoff()
    crew.kickoff(from_checkpoint=CheckpointConfig(path=db, run_id=second.run_id, branch="try-2"))
    fork_done, = rec.of(CheckpointForkCompletedEvent)
    assert fork_done.branch == "try-2" and fork_done.parent_checkpoint_id == second.run_id
    assert fork_done.started_event_id == rec.of(CheckpointForkStartedEvent)[0].event_id
    restored, = rec.of(CheckpointRestoreCompletedEvent)
    assert restored.checkpoint_id == fork_done.checkpoint_id and restored.branch == "try-2"
    assert restored.parent_id == second.run_id and restored.restored_count >= 1


def test_crewais_checkpoint_records_publish_their_writes_and_prunes(tmp_path: Path) -> None:
    from crewgraph.state import CheckpointConfig as CrewAICheckpointConfig

    rec = Recorder(CheckpointStartedEvent, CheckpointCompletedEvent, CheckpointPrunedEvent)
    agent = Agent(role="R", goal="G", backstory="B", llm=FakeLLM(["a", "b"]))
    tasks = [Task(description=f"step {i}", expected_output="e", agent=agent) for i in range(2)]
    config = CrewAICheckpointConfig(location=str(tmp_path), max_checkpoints=1)
    Crew(agents=[agent], tasks=tasks, checkpoint=config).kickoff()
    written = rec.of(CheckpointCompletedEvent)  # one per on_events trigger, not per saved node
    assert [(e.trigger, e.provider) for e in written] == [("task_completed", "json")] * 2
    assert written[1].parent_id == written[0].checkpoint_id
    assert [e.started_event_id for e in written] == [e.event_id for e in rec.of(CheckpointStartedEvent)]
    pruned, = rec.of(CheckpointPrunedEvent)
    assert (pruned.removed_count, pruned.max_checkpoints) == (1, 1)


class WindowedLLM(FakeLLM):
    """A fake model with a small context window."""

    def get_context_window_size(self) -> int:
        return 1200


def test_respecting_the_context_window_publishes_the_summarization() -> None:
    big = "x" * 1600

    @tool("Search")
    def search(query: str) -> str:
        """Search."""
        return f"{query}: {big}"

    turns = [FakeToolCall("Search", {"query": q}) for q in "abc"] + ["growth"]

    def reply(request: FakeRequest) -> Any:
        return "They said growth." if request.messages[0]["content"] == SUMMARY_PROMPT else turns.pop(0)

    rec = Recorder(ContextWindowSummarizationStartedEvent, ContextWindowSummarizationCompletedEvent,
                   LLMCallStartedEvent)
    llm = WindowedLLM(None, default=reply)
    agent = Agent(role="Researcher", goal="Find", backstory="B", llm=llm, tools=[search])
    Crew(agents=[agent], tasks=[Task(description="Research", expected_output="Facts", agent=agent)]).kickoff()
    started = rec.of(ContextWindowSummarizationStartedEvent)
    done = rec.of(ContextWindowSummarizationCompletedEvent)
    assert started and len(done) == len(started)
    assert done[0].started_event_id == started[0].event_id and done[0].agent_role == "Researcher"
    assert done[0].remaining_count < done[0].message_count
    summary_calls = [e for e in rec.of(LLMCallStartedEvent)
                     if isinstance(e.messages, list) and e.messages[0]["content"] == SUMMARY_PROMPT]
    assert summary_calls and summary_calls[0].parent_event_id == started[0].event_id
    assert estimate_tokens([{"content": "x"}]) > 0


def test_a_failed_memory_recall_is_published_before_the_task_fails() -> None:
    class Broken:
        def recall(self, *args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("vector store down")

    rec = Recorder(MemoryRetrievalStartedEvent, MemoryRetrievalFailedEvent)
    agent = Agent(role="R", goal="G", backstory="B", llm=FakeLLM(["x"]), memory=Broken())
    crew = Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)])
    with pytest.raises(Exception, match="vector store down"):
        crew.kickoff()
    failed, = rec.of(MemoryRetrievalFailedEvent)
    assert "vector store down" in failed.error and failed.source_type == "unified_memory"
    assert failed.started_event_id == rec.of(MemoryRetrievalStartedEvent)[0].event_id


def test_agent_kickoff_is_a_lite_agent_execution() -> None:
    rec = Recorder(LiteAgentExecutionStartedEvent, LiteAgentExecutionCompletedEvent, LiteAgentExecutionErrorEvent,
                   CrewKickoffStartedEvent)
    agent = Agent(role="Helper", goal="Help", backstory="Helps.", tools=[echo], llm=FakeLLM(["Sure."]))
    assert agent.kickoff("Can you help?").raw == "Sure."
    started, = rec.of(LiteAgentExecutionStartedEvent)
    done, = rec.of(LiteAgentExecutionCompletedEvent)
    assert started.agent_info["role"] == "Helper" and started.agent_info["tools"] == ["echo"]
    assert started.messages == "Can you help?" and started.agent_id == str(agent.id)
    assert done.output == "Sure." and done.started_event_id == started.event_id
    assert rec.of(CrewKickoffStartedEvent)[0].parent_event_id == started.event_id

    class Boom(FakeLLM):
        async def acall(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("model down")

    with pytest.raises(Exception, match="model down"):
        Agent(role="Helper", goal="Help", backstory="B", llm=Boom([])).kickoff("hi")
    error, = rec.of(LiteAgentExecutionErrorEvent)
    assert "model down" in error.error


def test_a_failing_agent_publishes_agent_execution_error() -> None:
    from crewgraph.events import (
        AgentExecutionErrorEvent,
        AgentExecutionStartedEvent,
        TaskFailedEvent,
    )

    class Boom(FakeLLM):
        async def acall(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("model down")

    rec = Recorder(AgentExecutionStartedEvent, AgentExecutionErrorEvent, TaskFailedEvent)
    with pytest.raises(Exception, match="model down"):
        _crew(Boom([])).kickoff()
    attempts = rec.of(AgentExecutionStartedEvent)  # the step is retried before the task fails
    error, = rec.of(AgentExecutionErrorEvent)
    failed, = rec.of(TaskFailedEvent)
    assert "model down" in error.error and error.agent_role == "Writer" and error.task_name == "Say hi"
    assert error.started_event_id == attempts[-1].event_id
    assert failed.agent_role == "Writer" and failed.error_type is not None


def test_flows_publish_created_failed_and_the_finished_state() -> None:
    class Counting(Flow[dict[str, Any]]):
        @start()
        def begin(self) -> str:
            self.state["n"] = 1
            return "ok"

    class Failing(Flow[dict[str, Any]]):
        @start()
        def begin(self) -> None:
            raise ValueError("bad input")

    rec = Recorder(FlowEvent)
    flow = Counting()
    created, = rec.of(FlowCreatedEvent)
    assert created.flow_name == flow.flow_name
    assert flow.kickoff() == "ok"
    finished, = rec.of(FlowFinishedEvent)
    assert finished.state["n"] == 1 and finished.result == "ok"
    with pytest.raises(ValueError):
        Failing().kickoff()
    failed, = rec.of(FlowFailedEvent)
    assert isinstance(failed.error, ValueError) and failed.type == "flow_failed"


def test_nothing_is_built_for_events_nobody_listens_to(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    built: list[str] = []
    original = BaseEvent.model_post_init

    def counting(self: BaseEvent, context: Any, /) -> None:
        built.append(self.type)
        original(self, context)

    monkeypatch.setattr(BaseEvent, "model_post_init", counting)
    crew = _crew(FakeLLM([FakeToolCall("missing", {}), FakeToolCall("echo", {"text": "a"}), "done"] * 2),
                 checkpoint=CheckpointConfig(path=tmp_path / "c.db"))
    crew.kickoff()

    class Quiet(Flow[dict[str, Any]]):
        @start()
        def begin(self) -> str:
            return "ok"

    assert Quiet().kickoff() == "ok"
    assert built == []
    built.clear()
    Recorder(ToolSelectionErrorEvent)
    crew.kickoff()
    assert "tool_selection_error" in built and "checkpoint_completed" not in built


def test_the_bus_names_are_crewais() -> None:
    assert EventListener() is event_listener  # one default listener, as CrewAI's

    def first(source: Any, event: Any) -> None: ...

    def second(source: Any, event: Any) -> None: ...

    crewai_event_bus.on(TaskStartedEvent, depends_on=Depends(second))(first)
    with pytest.raises(CircularDependencyError):
        crewai_event_bus.on(TaskStartedEvent, depends_on=Depends(first))(second)
    assert TaskStartedEvent(task_name="t").type == TaskStartedEvent.event_type == "task_started"
