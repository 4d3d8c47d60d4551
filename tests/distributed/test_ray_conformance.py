"""The same crews and flows, run locally and on Ray, give the same run.

Same outputs, the same executed graph (node kinds and edges, spawned tool calls and
LLM call records included) and the same checkpoints. The models answer by what they
are asked, not by call order, so concurrent steps cannot swap replies between runs.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from crewgraph import Agent, Crew, Process, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.distributed import RayExecutor
from crewgraph.flow import Flow, listen, router, start
from crewgraph.outputs import TaskOutput
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall
from crewgraph.tools import tool

WHERE: list[int] = []


@tool("multiply")
def multiply(a: int, b: int) -> str:
    """Multiply two numbers."""
    return f"{a * b} (computed in pid {os.getpid()})"


def _answer(request: FakeRequest) -> Any:
    """Replies chosen from the request: a tool call first, then an answer naming the task."""
    prompt = request.prompt
    task = next((line for line in prompt.splitlines() if line.startswith("Current Task:")), "Current Task: ?")
    name = task.removeprefix("Current Task:").strip()
    if request.tool_names and not any(m.get("role") == "tool" for m in request.messages):
        return FakeToolCall("multiply", {"a": 6, "b": 7})
    if "REDO" in name and "not accepted" not in prompt:
        return "draft without the word"
    return f"answer to {name}"


def _graph_shape(out: Any) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    g = out.graph.graph
    nodes = sorted((nid, data["kind"], data["record"].status) for nid, data in g.nodes(data=True))
    edges = sorted((u, v, str(data.get("kind"))) for u, v, data in g.edges(data=True))
    return nodes, edges


def _checkpoint(path: Path, run_id: str) -> list[tuple[str, bool, Any]]:
    with SQLiteCheckpointStore(path) as store:
        saved = store.completed(run_id)
        infos = {n.node_id: n.restorable for n in store.nodes(run_id)}
    return sorted((nid, infos[nid], _plain(value)) for nid, value in saved.items())


def _plain(value: Any) -> Any:
    if isinstance(value, TaskOutput):
        return (value.raw, value.name, value.agent)
    return repr(value)


def _must_mention_word(output: TaskOutput) -> tuple[bool, Any]:
    ok = "answer" in output.raw
    return (ok, output if ok else "say the word 'answer'")


def _crew(kind: str, path: Path) -> Crew:
    llm = FakeLLM(default=_answer)
    agent = Agent(role="Calculator", goal="compute", backstory="careful", llm=llm, tools=[multiply],
                  max_retry_limit=0)
    writer = Agent(role="Writer", goal="write", backstory="terse", llm=llm, max_retry_limit=0)
    if kind == "sequential":
        tasks = [
            Task(name="compute", description="compute six times seven", expected_output="n", agent=agent),
            Task(name="report", description="report the number", expected_output="s", agent=writer),
        ]
    elif kind == "parallel":
        tasks = [
            Task(name=f"part{i}", description=f"part {i}", expected_output="s", agent=writer, async_execution=True)
            for i in range(3)
        ] + [Task(name="join", description="combine the parts", expected_output="s", agent=writer)]
    else:  # a guardrail that sends the first draft back
        tasks = [
            Task(name="REDO", description="write REDO text", expected_output="s", agent=writer,
                 guardrail=_must_mention_word),
        ]
    return Crew(name=f"conformance-{kind}", agents=[agent, writer], tasks=tasks, process=Process.sequential,
                checkpoint=CheckpointConfig(path=path))


def _both(kind: str, tmp_path: Path) -> tuple[Any, Any, Path]:
    db = tmp_path / f"{kind}.db"
    local = _crew(kind, db).kickoff()
    remote = _crew(kind, db).kickoff(executor=RayExecutor())
    return local, remote, db


def _same_run(local: Any, remote: Any, db: Path) -> None:
    assert remote.raw == local.raw
    assert [(t.name, t.raw) for t in remote.tasks_output] == [(t.name, t.raw) for t in local.tasks_output]
    assert remote.token_usage == local.token_usage
    assert _graph_shape(remote) == _graph_shape(local)
    assert _checkpoint(db, remote.run_id) == _checkpoint(db, local.run_id)


def test_a_sequential_crew_with_tools_runs_the_same_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    local, remote, db = _both("sequential", tmp_path)
    _same_run(local, remote, db)
    kinds = [d["kind"] for _, d in remote.graph.graph.nodes(data=True)]
    assert "tool" in kinds and "llm" in kinds  # spawned tool call and LLM call records, as locally
    assert remote.raw == "answer to report the number"


def test_tool_calls_on_ray_run_in_worker_processes(ray_cluster: Any, tmp_path: Path) -> None:
    remote = _crew("sequential", tmp_path / "pids.db").kickoff(executor=RayExecutor())
    pids = {int(word) for t in remote.tasks_output for word in _pids(t)}
    local = _crew("sequential", tmp_path / "pids2.db").kickoff()
    assert {int(word) for t in local.tasks_output for word in _pids(t)} <= {os.getpid()}
    assert os.getpid() not in pids


def _pids(output: TaskOutput) -> list[str]:
    text = " ".join(str(m.get("content") or "") for m in output.messages)
    return re.findall(r"pid (\d+)", text)


def test_parallel_async_tasks_run_the_same_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    local, remote, db = _both("parallel", tmp_path)
    _same_run(local, remote, db)
    assert [t.raw for t in remote.tasks_output] == [f"answer to part {i}" for i in range(3)] + [
        "answer to combine the parts"
    ]


def test_a_guardrail_redo_runs_the_same_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    local, remote, db = _both("guardrail", tmp_path)
    _same_run(local, remote, db)
    assert remote.raw == "answer to write REDO text"
    kinds = {d["kind"] for _, d in remote.graph.graph.nodes(data=True)}
    assert "guardrail" in kinds


class Counter(BaseModel):
    visits: list[str] = []
    total: int = 0


class RoutedFlow(Flow[Counter]):
    @start()
    def begin(self) -> int:
        self.state.visits.append(f"begin@{os.getpid() != WHERE[0]}")
        self.state.total += 5
        return 5

    @router(begin)
    def decide(self, value: int) -> str:
        self.state.visits.append("decide")
        return "big" if value > 3 else "small"

    @listen("big")
    def handle_big(self, value: int) -> str:
        self.state.total += 100
        self.state.visits.append("big")
        return f"big {value}"

    @listen("small")
    def handle_small(self, value: int) -> str:
        self.state.visits.append("small")
        return "small"

    @listen(handle_big)
    def left(self, text: str) -> str:
        return f"left saw {text}"

    @listen(handle_big)
    def right(self, text: str) -> str:
        return f"right saw {text}"


def _flow_shape(flow: Flow[Any]) -> Any:
    g = flow._run_graph.graph  # type: ignore[union-attr]
    return (
        sorted((nid, d["kind"], d["record"].status) for nid, d in g.nodes(data=True)),
        sorted((u, v) for u, v in g.edges()),
    )


def test_a_flow_with_a_router_and_listeners_runs_the_same_on_ray(ray_cluster: Any) -> None:
    WHERE[:] = [os.getpid()]
    local = RoutedFlow()
    local_result = local.kickoff()
    remote = RoutedFlow(executor=RayExecutor())
    remote_result = remote.kickoff()
    # a flow returns its last method to finish (CrewAI's rule): `left` and `right` listen to the
    # same method and run at once on Ray, so either may end last; locally they run in order
    assert local_result == "right saw big 5"
    assert remote_result in {"left saw big 5", "right saw big 5"}
    assert sorted(map(str, remote.method_outputs)) == sorted(map(str, local.method_outputs))
    assert remote.state.total == local.state.total == 105
    assert [v.split("@")[0] for v in remote.state.visits] == [v.split("@")[0] for v in local.state.visits]
    assert local.state.visits[0] == "begin@False"
    assert remote.state.visits[0] == "begin@True"  # the method ran in a worker process
    assert _flow_shape(remote) == _flow_shape(local)
