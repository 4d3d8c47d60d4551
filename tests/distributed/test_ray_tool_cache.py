"""The run's tool cache on Ray: one cache for the run, whichever worker a task runs on.

A cache entry is keyed by the tool *instance* (two ``FileReadTool``s with different paths
share a name), and a worker gets a copy of the tool with each step. The copy keeps the
driver instance's mark, so a task on Ray is answered from an entry an earlier task made,
as it is in a local run, and two instances of one name still never share entries. The
tools here log each real run to a file (they run in worker processes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import BaseTool


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    pytest.importorskip("ray")


class _Lookup(BaseTool):
    name: str = "lookup"
    description: str = "Look a word up."
    log: str
    prefix: str = "meaning"

    def _run(self, q: str) -> str:
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(f"{self.prefix}:{q}\n")
        return f"{self.prefix} of {q}"


def _crew(tools: list[BaseTool], calls: list[dict[str, str]]) -> tuple[Crew, FakeLLM]:
    script: list[Any] = []
    for i, args in enumerate(calls):
        script += [FakeToolCall("lookup", args), f"answer {i}"]
    llm = FakeLLM(script)
    agents = [Agent(role=f"R{i}", goal="g", backstory="b", llm=llm, tools=[tool], max_retry_limit=0)
              for i, tool in enumerate(tools)]
    tasks = [Task(name=f"t{i}", description=f"d{i}", expected_output="x", agent=agents[i % len(agents)], context=[])
             for i in range(len(calls))]
    return Crew(agents=agents, tasks=tasks, cache=True), llm


def _tool_replies(llm: FakeLLM) -> list[str]:
    return [str(m.get("content")) for call in llm.calls for m in call.messages if m.get("role") == "tool"]


@pytest.mark.parametrize("batch_chains", [True, False])
def test_a_later_task_on_ray_is_answered_from_the_runs_cache(
    ray_cluster: Any, tmp_path: Path, batch_chains: bool
) -> None:
    from crewgraph.distributed import RayExecutor

    calls = [{"q": "x"}, {"q": "y"}, {"q": "x"}, {"q": "y"}]
    local_log, ray_log = tmp_path / "local.txt", tmp_path / "ray.txt"
    local_crew, local_llm = _crew([_Lookup(log=str(local_log))], calls)
    local_crew.kickoff()
    crew, llm = _crew([_Lookup(log=str(ray_log))], calls)
    out = crew.kickoff(executor=RayExecutor(batch_chains=batch_chains))
    assert out.raw == "answer 3"
    assert local_log.read_text().splitlines() == ["meaning:x", "meaning:y"]
    assert ray_log.read_text().splitlines() == ["meaning:x", "meaning:y"]  # tasks 3 and 4 hit the cache
    assert _tool_replies(llm) == _tool_replies(local_llm)


def test_two_instances_of_one_name_keep_their_own_entries_on_ray(ray_cluster: Any, tmp_path: Path) -> None:
    from crewgraph.distributed import RayExecutor

    log = tmp_path / "log.txt"
    first, second = _Lookup(log=str(log)), _Lookup(log=str(log), prefix="other")
    crew, llm = _crew([first, second], [{"q": "x"}, {"q": "x"}, {"q": "x"}])
    crew.kickoff(executor=RayExecutor())
    assert log.read_text().splitlines() == ["meaning:x", "other:x"]  # task 3 (first again) hits
    assert [r.split(" of ")[0] for r in _tool_replies(llm)] == ["meaning", "other", "meaning"]


def test_what_a_task_ships_does_not_grow_with_the_cache(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each task adds an entry; a payload carries the newest few (4 here) and names the rest,
    which went to the host once, whatever the number of tasks before it. The last tasks'
    calls repeat the first ones: workers fetch those entries from the host, and hit."""
    import crewgraph.distributed._cache_share as cache_share
    import crewgraph.distributed._session as session
    from crewgraph.distributed import RayExecutor

    monkeypatch.setattr(cache_share, "RECENT_KEPT", 4)

    sizes: list[int] = []
    dumps = session.dumps_checked

    def counting(pickler: Any, obj: Any, what: str) -> bytes:
        data: bytes = dumps(pickler, obj, what)
        if type(obj).__name__ in ("ChainPayload", "StepPayload"):
            sizes.append(len(data))
        return data

    monkeypatch.setattr(session, "dumps_checked", counting)
    last: dict[int, int] = {}
    for n in (12, 40):
        sizes.clear()
        log = tmp_path / f"log{n}.txt"
        calls = [{"q": f"word-{i % (n - 2)}"} for i in range(n)]  # the last two repeat the first two
        crew, llm = _crew([_Lookup(log=str(log))], calls)
        crew.kickoff(executor=RayExecutor())
        assert len(log.read_text().splitlines()) == n - 2
        assert _tool_replies(llm)[-2:] == ["meaning of word-0", "meaning of word-1"]
        assert len(sizes) == n
        last[n] = max(sizes[-5:])
        assert last[n] <= max(sizes[:10]) + 200, sizes
    assert last[40] <= last[12] + 200
