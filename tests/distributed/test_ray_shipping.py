"""What a step needs travels to the worker or is rebuilt there; what cannot is refused at kickoff."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.distributed import RayExecutor
from crewgraph.errors import ConfigurationError
from crewgraph.testing import FakeLLM, FakeToolCall, OpenAICompatServer
from crewgraph.tools import BaseTool, tool


class SocketTool(BaseTool):
    """A tool holding a live connection: it cannot be pickled."""

    name: str = "fetch"
    description: str = "Fetch something."
    conn: Any = None

    def _run(self, what: str) -> str:
        return what


@tool("where")
def where() -> str:
    """Say which Ray node runs this call."""
    import ray

    return ray.get_runtime_context().get_node_id()


def _crew(llm: Any, *, tools: list[Any] = (), **task: Any) -> Crew:  # type: ignore[assignment]
    agent = Agent(role="Worker", goal="work", backstory="b", llm=llm, tools=list(tools), max_retry_limit=0)
    return Crew(agents=[agent], tasks=[Task(name="job", description="do the job", expected_output="x",
                                             agent=agent, **task)])


def test_a_tool_that_cannot_travel_is_refused_at_kickoff_naming_node_and_object(ray_cluster: Any) -> None:
    llm = FakeLLM(["never used"])
    with socket.socket() as conn:
        crew = _crew(llm, tools=[SocketTool(conn=conn)])
        with pytest.raises(ConfigurationError) as info:
            crew.kickoff(executor=RayExecutor())
    message = str(info.value)
    assert "job.agent' (agent_step" in message and "task 'job'" in message
    assert "tools[0].conn" in message and "socket" in message
    assert llm.call_count == 0  # refused before any token was spent


def test_embedded_memory_is_refused_with_the_way_to_a_qdrant_server(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path))
    monkeypatch.delenv("CREWGRAPH_QDRANT_URL", raising=False)
    llm = FakeLLM(["never used"])
    crew = _crew(llm)
    crew.memory = True
    with pytest.raises(ConfigurationError) as info:
        crew.kickoff(executor=RayExecutor())
    message = str(info.value)
    assert "embedded memory" in message and "Qdrant server" in message
    assert 'Memory(storage="http://' in message and "CREWGRAPH_QDRANT_URL" in message
    assert llm.call_count == 0


def test_a_model_client_is_rebuilt_on_the_worker_from_its_configuration(ray_cluster: Any) -> None:
    with OpenAICompatServer(["the answer"]) as server:
        llm = LLM(model="crewgraph-test", base_url=server.base_url, api_key="x")
        out = _crew(llm).kickoff(executor=RayExecutor())
        assert out.raw == "the answer"
        assert len(server.chat_requests) == 1  # the worker's own client reached the server
        assert "do the job" in str(server.chat_requests[0]["messages"])


def test_a_tools_resources_place_its_calls_on_a_node_that_has_them(ray_cluster: Any) -> None:
    import ray

    node_b = next(n["NodeID"] for n in ray.nodes() if n["Alive"] and ray_cluster.node_b in n["Resources"])
    pinned = where.model_copy(update={"resources": {ray_cluster.node_b: 1}})
    llm = FakeLLM([FakeToolCall("where", {}), "done"])
    out = _crew(llm, tools=[pinned], resources={ray_cluster.node_b: 0.5}).kickoff(executor=RayExecutor())
    assert out.raw == "done"
    tool_results = [m["content"] for m in out.tasks_output[0].messages if m.get("role") == "tool"]
    assert tool_results == [node_b]


def test_a_resource_the_cluster_does_not_have_is_refused_at_kickoff(ray_cluster: Any) -> None:
    llm = FakeLLM(["never used"])
    with pytest.raises(ConfigurationError) as info:
        _crew(llm, resources={"GPU": 1}).kickoff(executor=RayExecutor())
    message = str(info.value)
    assert "task 'job'" in message and "GPU=1" in message and "has 0" in message
    assert llm.call_count == 0


@pytest.mark.parametrize("bad", [{"GPU": -1}, {"GPU": "one"}, {"": 1}, ["GPU"]])
def test_invalid_resources_are_refused_when_the_task_is_made(bad: Any) -> None:
    with pytest.raises(ValueError, match="resources"):
        Task(description="d", expected_output="e", resources=bad)
    with pytest.raises(ValueError, match="resources"):
        where.model_copy().model_validate({**where.model_dump(), "resources": bad})


def test_global_hooks_registered_on_the_driver_run_on_the_workers(ray_cluster: Any) -> None:
    from crewgraph.hooks.llm_hooks import (
        register_after_llm_call_hook,
        unregister_after_llm_call_hook,
    )

    def shout(context: Any) -> str:
        return str(context.response).upper()

    register_after_llm_call_hook(shout)
    try:
        out = _crew(FakeLLM(["quiet answer"])).kickoff(executor=RayExecutor())
    finally:
        unregister_after_llm_call_hook(shout)
    assert out.raw == "QUIET ANSWER"
