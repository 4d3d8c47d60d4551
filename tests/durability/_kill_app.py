"""A checkpointed crew run in its own process, so tests can SIGKILL it at any moment.

``python _kill_app.py DB LOG LATENCY [HOLD]`` kicks the crew off with
``from_checkpoint=True`` (a fresh run the first time, a resume after a kill),
appends one JSON line to LOG per LLM call and per tool call (flushed before
the call proceeds, so a killed process leaves an exact record), and prints
the final output as JSON. With HOLD, the process's HOLD-th LLM call, once logged, does
not answer (for 60 s at most): a test kills it there, mid-call, however slow the machine.
The fake model answers deterministically from the
prompt (a hash of everything it was sent), so any difference in what a
resumed run restores or sends shows up in the final output.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse, ToolCall, ToolSpec
from crewgraph.outputs import UsageMetrics
from crewgraph.tools import tool

_TASK_RE = re.compile(r"Current Task: (\w+)")


def _log(path: Path, **entry: Any) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"pid": os.getpid(), **entry}) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


class HashLLM(BaseLLM):
    """Replies ``"<task>:<hash of the prompt>"``; the first turn of a task with tools calls one."""

    model = "hash-llm"

    def __init__(self, log: Path, latency: float, hold: int | None = None) -> None:
        self.log = log
        self.latency = latency
        self.hold = hold
        self.calls = 0

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        prompt = json.dumps(messages, sort_keys=True)
        found = _TASK_RE.search(prompt)
        task = found.group(1) if found else "?"
        _log(self.log, kind="llm", task=task)
        self.calls += 1
        await asyncio.sleep(60.0 if self.calls == self.hold else self.latency)
        usage = UsageMetrics(prompt_tokens=10, completion_tokens=5, total_tokens=15, successful_requests=1)
        if tools and not any(m.get("role") == "tool" for m in messages):
            call = ToolCall(id=f"call_{task}", name=tools[0].name, arguments=json.dumps({"topic": task}))
            return LLMResponse(tool_calls=[call], usage=usage)
        digest = hashlib.sha256(prompt.encode()).hexdigest()[:12]
        return LLMResponse(content=f"{task}:{digest}", usage=usage)


def build_crew(db: Path, log: Path, latency: float, hold: int | None = None) -> Crew:
    llm = HashLLM(log, latency, hold)

    @tool("lookup")
    def lookup(topic: str) -> str:
        """Look a topic up."""
        _log(log, kind="tool", task=topic)
        return f"facts about {topic}"

    researcher = Agent(role="Researcher", goal="Find facts", llm=llm, tools=[lookup], max_retry_limit=0)
    writer = Agent(role="Writer", goal="Write", llm=llm, max_retry_limit=0)
    tasks = [
        Task(name="alpha", description="alpha: research {topic}", expected_output="notes", agent=researcher, async_execution=True),
        Task(name="beta", description="beta: research more about {topic}", expected_output="notes", agent=researcher, async_execution=True),
        Task(name="gamma", description="gamma: outline", expected_output="outline", agent=writer),
        Task(name="delta", description="delta: draft", expected_output="draft", agent=writer),
        Task(name="epsilon", description="epsilon: polish", expected_output="article", agent=writer),
    ]
    return Crew(name="killable", agents=[researcher, writer], tasks=tasks, checkpoint=CheckpointConfig(path=db))


def main() -> None:
    db, log, latency = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
    hold = int(sys.argv[4]) if len(sys.argv) > 4 else None
    out = build_crew(db, log, latency, hold).kickoff({"topic": "durability"}, from_checkpoint=True)
    print(json.dumps({"raw": out.raw, "tasks": [t.raw for t in out.tasks_output], "run_id": out.run_id}), flush=True)


if __name__ == "__main__":
    main()
