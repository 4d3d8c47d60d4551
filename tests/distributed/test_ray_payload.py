"""What a Ray step ships: only what its node reads (``Node.reads``), and the model sees the same.

Before, every step (or chain) carried every output of the run so far and the default
context's cached text: O(k) bytes at task k with ``context=[]``, O(k^2) with CrewAI's default
context (each earlier ``TaskOutput`` pickles its prompt). Now a step carries its upstream
(outputs it reads only as text go as text), the outputs its node names, and for the default
context a reference to the run's shared texts on the host actor, each sent there once.

The behaviour tests compare the messages the model was sent by a local run and by Ray runs
(chains batched and steps alone) for the default context, an explicit context and
conditional tasks (run and skipped). The size tests count the bytes the driver pickles for
each Ray task at two run sizes.
"""

from __future__ import annotations

import pickle
import re
from typing import Any

import pytest

from crewgraph import Agent, Crew, Process, Task
from crewgraph.outputs import TaskOutput
from crewgraph.tasks.conditional_task import ConditionalTask
from crewgraph.testing import FakeLLM, FakeRequest


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    """Skips at setup rather than at import (function scope), so collecting the suite does not import ray."""
    pytest.importorskip("ray")


def _reply(request: FakeRequest) -> str:
    """A long answer that names its task (so each context entry differs)."""
    found = re.search(r"write about (topic-\d+)", request.prompt)
    return f"{found.group(1) if found else 'topic-?'} no " + "lorem ipsum " * 150


def _has_yes(output: TaskOutput) -> bool:
    return " yes " in f" {output.raw} "


def _mixed_crew(llm: FakeLLM) -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="terse", llm=llm, max_retry_limit=0,
                  respect_context_window=False)

    def task(i: int, **kw: Any) -> Task:
        return Task(name=f"t{i}", description=f"write about topic-{i}", expected_output="text", agent=agent, **kw)

    t0, t1, t2 = task(0), task(1), task(2)
    explicit = task(3, context=[t0, t2])
    runs = ConditionalTask(name="t4", description="write about topic-4", expected_output="text", agent=agent,
                           condition=_has_yes)  # t3's output: "topic-3 no": skipped
    after_skip = task(5)
    ran = ConditionalTask(name="t6", description="write about topic-6", expected_output="text", agent=agent,
                          condition=lambda out: "topic-5" in out.raw)  # runs
    last = task(7)
    return Crew(name="mixed", agents=[agent], tasks=[t0, t1, t2, explicit, runs, after_skip, ran, last],
                process=Process.sequential)


def _prompts(llm: FakeLLM) -> list[list[dict[str, Any]]]:
    return [[dict(m) for m in call.messages] for call in llm.calls]


def test_the_model_is_sent_the_same_prompts_on_ray_as_locally(ray_cluster: Any) -> None:
    from crewgraph.distributed import RayExecutor

    local_llm = FakeLLM(default=_reply)
    local = _mixed_crew(local_llm).kickoff()
    assert [t.raw == "" for t in local.tasks_output] == [False, False, False, False, True, False, False, False]
    expected = _prompts(local_llm)
    assert len(expected) == 7
    assert "topic-0" in expected[3][1]["content"] and "topic-1 " not in expected[3][1]["content"]  # explicit
    for executor in (RayExecutor(), RayExecutor(batch_chains=False)):
        llm = FakeLLM(default=_reply)
        out = _mixed_crew(llm).kickoff(executor=executor)
        assert [t.raw for t in out.tasks_output] == [t.raw for t in local.tasks_output]
        assert _prompts(llm) == expected


def _long_crew(llm: FakeLLM, n: int, shape: str) -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="terse", llm=llm, max_retry_limit=0,
                  respect_context_window=False)
    extra: dict[str, Any] = {"context": []} if shape == "empty" else {}
    return Crew(agents=[agent], tasks=[
        Task(name=f"t{i}", description=f"write about topic-{i}", expected_output="text", agent=agent, **extra)
        for i in range(n)])


def _shipped(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """Bytes of each step/chain payload the driver pickles, and of each append to the host's
    shared context (each entry's pickle)."""
    import crewgraph.distributed._session as session
    from crewgraph.distributed._context_share import ContextShares

    sizes: list[int] = []
    appended: list[int] = []
    dumps = session.dumps_checked

    def counting(pickler: Any, obj: Any, what: str) -> bytes:
        data: bytes = dumps(pickler, obj, what)
        if type(obj).__name__ in ("ChainPayload", "StepPayload"):
            sizes.append(len(data))
        return data

    extend = ContextShares.extend

    def extending(self: ContextShares, prefix: Any, output_of: Any, host: Any) -> Any:
        before = {p.key: p.sent for p in self._pools.values()}
        pool = extend(self, prefix, output_of, host)
        if pool is not None:
            for i in range(before.get(pool.key, 0), pool.sent):
                appended.append(len(pickle.dumps(output_of(prefix[i]).raw)))
        return pool

    monkeypatch.setattr(session, "dumps_checked", counting)
    monkeypatch.setattr(ContextShares, "extend", extending)
    return sizes, appended


@pytest.mark.parametrize("shape", ["default", "empty"])
def test_what_a_task_ships_does_not_grow_with_the_run(
    ray_cluster: Any, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    from crewgraph.distributed import RayExecutor

    sizes, appended = _shipped(monkeypatch)
    last: dict[int, int] = {}
    for n in (6, 30):
        sizes.clear()
        appended.clear()
        out = _long_crew(FakeLLM(default=_reply), n, shape).kickoff(executor=RayExecutor())
        assert len(out.tasks_output) == n
        assert len(sizes) == n  # one Ray task per task
        last[n] = sizes[-1]
        # task 5 ships the same at both sizes, and the last task no more than task 5 (+ a few
        # bytes for longer ids): nothing grows with the tasks before it
        assert sizes[-1] <= sizes[5] + 200, sizes
        if shape == "default":
            # every earlier output's text went to the host once (the last task's is never read)
            assert len(appended) == n - 1
            assert max(appended) < 2 * min(appended)
        else:
            assert appended == []
    assert last[30] <= last[6] + 200


def test_the_host_applies_appends_in_pool_order_whatever_order_they_arrive_in() -> None:
    from crewgraph.distributed._context_share import HostContexts, SharedTexts
    from crewgraph.graph.reads import OutputText

    host = HostContexts()
    second = [("c", OutputText("C", "3"))]
    first = [("a", OutputText("A", "1")), ("b", OutputText("B", "2"))]
    host.extend("k", 2, second)  # arrived first
    with pytest.raises(LookupError):
        host.get("k", 0, 1)
    host.extend("k", 0, first)
    assert host.get("k", 1, 3) == (["b", "c"], [OutputText("B", "2"), OutputText("C", "3")])
    host.drop(["k"])
    assert host.ids == {} and host.texts == {}

    view = SharedTexts({"a": "own"}, {"a": OutputText("A", "1"), "b": OutputText("B", "2")})
    view["z"] = "chained"
    assert dict(view) == {"a": "own", "z": "chained", "b": OutputText("B", "2")} and len(view) == 3


def _replies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Bytes of each step reply the driver unpickles."""
    import crewgraph.distributed._session as session

    sizes: list[int] = []
    loads = session.loads

    def counting(data: bytes) -> Any:
        reply = loads(data)
        if hasattr(reply, "events"):
            sizes.append(len(data))
        return reply

    monkeypatch.setattr(session, "loads", counting)
    return sizes


def test_what_a_task_sends_back_does_not_grow_with_the_run_and_keeps_the_prompts_whole(
    ray_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A default-context task's prompt (in its output's messages and in the run graph's record
    of its model call) comes back as a ref to the driver's shared texts, not as its text; read
    on the driver, it is the prompt the model was sent, as a local run keeps it."""
    from crewgraph._internal.shared_prompt import CompactMessage
    from crewgraph.distributed import RayExecutor

    sizes = _replies(monkeypatch)
    last: dict[int, int] = {}
    for n in (6, 30):
        sizes.clear()
        llm = FakeLLM(default=_reply)
        out = _long_crew(llm, n, "default").kickoff(executor=RayExecutor())
        assert len(sizes) == n
        last[n] = sizes[-1]
        assert sizes[-1] <= sizes[5] + 200, sizes
        if n == 30:
            local = _long_crew(FakeLLM(default=_reply), n, "default").kickoff()
            for ray_task, local_task in zip(out.tasks_output, local.tasks_output, strict=True):
                assert [dict(m) for m in ray_task.messages] == [dict(m) for m in local_task.messages]
            kept = out.tasks_output[-1].messages[1]
            assert type(kept) is CompactMessage and kept == _prompts(llm)[-1][1]
            records = [r for r in out.graph.records() if r.kind == "llm"]
            assert len(records) == n
            last_record = max(records, key=lambda r: r.started_at or 0)
            assert [dict(m) for m in last_record.detail["messages"]] == _prompts(llm)[-1]
    assert last[30] <= last[6] + 200


def test_a_reply_naming_a_pool_the_driver_does_not_hold_is_refused_by_name() -> None:
    from crewgraph.distributed._context_share import driver_context

    with pytest.raises(LookupError, match=r"shared context 'gone:ctx1': a reply refers to 3 entries"):
        driver_context("gone:ctx1", 3, "\n\n")


def test_the_kickoff_check_does_not_pickle_each_tasks_context(
    ray_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kickoff check pickles each node to name the one that cannot ship; with the default
    context a node's prefix names every earlier task (k ids at task k: O(N^2) in all), which the
    check need not pickle. Each node's check costs the same at task 2 and at task 29."""
    import crewgraph.distributed._kickoff_check as check
    from crewgraph.distributed import RayExecutor

    checked: dict[str, int] = {}
    dumps = check.dumps_checked

    def counting(pickler: Any, obj: Any, what: str) -> bytes:
        data: bytes = dumps(pickler, obj, what)
        checked[what] = len(data)
        return data

    monkeypatch.setattr(check, "dumps_checked", counting)
    out = _long_crew(FakeLLM(default=_reply), 30, "default").kickoff(executor=RayExecutor())
    assert len(out.tasks_output) == 30
    steps = {what: size for what, size in checked.items() if "agent_step" in what}
    assert len(steps) == 30, sorted(checked)
    early = next(size for what, size in steps.items() if "task 't2'" in what)
    late = next(size for what, size in steps.items() if "task 't29'" in what)
    assert late <= early + 64, (early, late)
