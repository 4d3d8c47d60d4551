"""Crews for the lease races, run in real processes.

``python lease_app.py serve`` is a *racer*: it imports crewgraph once, then reads one JSON
command per line on stdin and answers one JSON line on stdout, so a test can make two
processes act on one run at the same instant without paying two interpreter starts per trial.
``python lease_app.py COMMAND ARGS...`` runs one command and prints its answer (a process the
test SIGKILLs).

Commands: ``review-start``, ``review-resume RUN ANSWER``, ``crew [RUN_KEY]`` (a three-task crew
with a tool, ``kickoff(from_checkpoint=True)``), ``batch N FROM`` (``kickoff_for_each`` over N
topics, FROM a batch id or ``new``). The model (:class:`LogLLM`) answers from the task after
$LEASE_LATENCY seconds and first appends ``pid task`` to $LEASE_CALL_LOG (flushed before it
answers, so a killed process leaves an exact record of every call of every process) and
``pid task time`` to ``$LEASE_CALL_LOG.times`` (when each call began, by the wall clock leases
use). With ``$LEASE_GATE`` set (a path), an "Outline" call does not answer until that file
exists (at most 60 s): a test stops or kills a holder mid-node however slow the machine is,
and lets a stopped one finish its node when it chooses. The tool
appends to $LEASE_TOOL_LOG; checkpoints go to $LEASE_DB. A command's answer is ``{"ok": ...}`` or ``{"error": kind, "message"}`` (kind ``leased``, ``lease_lost``
for a holder fenced off after it stalled past its lease, ``batch`` or ``checkpoint``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sys
import time
from typing import Any

from pydantic import BaseModel

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse, ToolCall, ToolSpec
from crewgraph.outputs import UsageMetrics
from crewgraph.tools import tool

_TASKS = re.compile(r"(Draft a post|Title the post|Gather facts|Outline|Summarise|Tag the topic \w+)")


def _append(path: str, line: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
        fh.flush()
        os.fsync(fh.fileno())


class LogLLM(BaseLLM):
    """A model in this process whose every call is logged to a file all processes share."""

    model = "log-llm"

    async def acall(self, messages: list[dict[str, Any]], *, tools: list[ToolSpec] | None = None,
                    response_model: type[BaseModel] | None = None, **kwargs: Any) -> LLMResponse:
        found = _TASKS.search(str(messages[1]["content"]) if len(messages) > 1 else "")
        task = found.group(1) if found else "?"
        began = time.time()
        _append(os.environ["LEASE_CALL_LOG"], f"{os.getpid()} {task}")
        _append(os.environ["LEASE_CALL_LOG"] + ".times", f"{os.getpid()} {task} {began!r}")
        await asyncio.sleep(float(os.environ.get("LEASE_LATENCY", "0.2")))
        gate = os.environ.get("LEASE_GATE")
        if gate and task == "Outline":
            until = time.monotonic() + 60
            while not os.path.exists(gate) and time.monotonic() < until:
                await asyncio.sleep(0.01)
        usage = UsageMetrics(prompt_tokens=10, completion_tokens=5, total_tokens=15, successful_requests=1)
        last = str(messages[-1].get("content") or "")
        if tools and task == "Gather facts" and not any(m.get("role") == "tool" for m in messages):
            return LLMResponse(tool_calls=[ToolCall(id="call_1", name=tools[0].name, arguments='{"topic": "owls"}')],
                               usage=usage)
        if "Human feedback on your answer: " in last:
            return LLMResponse(content="Owls hunt at night.", usage=usage)
        replies = {"Draft a post": "Owls are birds of prey.", "Title the post": "Night Owls"}
        return LLMResponse(content=replies.get(task, f"done: {task}"), usage=usage)


class _WaitLog(logging.Handler):
    """Appends ``pid waiting`` to ``$LEASE_CALL_LOG.waits`` when this process starts waiting
    for a lease another holds (a test then knows the waiter is there)."""

    def emit(self, record: logging.LogRecord) -> None:
        if str(record.msg).startswith("waiting up to"):
            _append(os.environ["LEASE_CALL_LOG"] + ".waits", f"{os.getpid()} waiting")


_LEASE_LOGGER = logging.getLogger("crewgraph.checkpoint")
_LEASE_LOGGER.addHandler(_WaitLog())
_LEASE_LOGGER.setLevel(logging.INFO)


def _config() -> CheckpointConfig:
    return CheckpointConfig(path=os.environ["LEASE_DB"])


def _llm() -> LogLLM:
    return LogLLM()


def review() -> Crew:
    writer = Agent(role="Writer", goal="Write about {topic}", backstory="A columnist", llm=_llm())
    return Crew(
        name="review",
        agents=[writer],
        tasks=[
            Task(name="draft", description="Draft a post about {topic}", expected_output="a post",
                 agent=writer, human_input=True),
            Task(name="title", description="Title the post", expected_output="a title", agent=writer),
        ],
        checkpoint=_config(),
        input_provider="persisted",
    )


@tool("lookup")
def lookup(topic: str) -> str:
    """Look a topic up."""
    _append(os.environ["LEASE_TOOL_LOG"], f"{os.getpid()} {topic}")
    return f"facts about {topic}"


def research() -> Crew:
    agent = Agent(role="Researcher", goal="Research {topic}", backstory="Careful", llm=_llm(), tools=[lookup])
    return Crew(
        name="research",
        agents=[agent],
        tasks=[
            Task(name="gather", description="Gather facts on {topic}", expected_output="facts", agent=agent),
            Task(name="outline", description="Outline {topic}", expected_output="an outline", agent=agent),
            Task(name="summary", description="Summarise {topic}", expected_output="a summary", agent=agent),
        ],
        checkpoint=_config(),
    )


def batch_crew() -> Crew:
    agent = Agent(role="Tagger", goal="Tag topics", backstory="Quick", llm=_llm())
    task = Task(name="tag", description="Tag the topic {topic}", expected_output="a tag", agent=agent)
    return Crew(name="tagger", agents=[agent], tasks=[task], checkpoint=_config())


def _output(out: Any) -> dict[str, Any]:
    return {"pid": os.getpid(), "run_id": out.run_id, "raw": out.raw, "pending": bool(getattr(out, "pending", False)),
            "tasks": [t.raw for t in out.tasks_output]}


def run(command: str, args: list[str], wait: float) -> dict[str, Any]:
    from crewgraph.checkpoint.lease import LeaseLostError, RunLeasedError
    from crewgraph.errors import BatchError, CheckpointError

    os.environ["CREWGRAPH_LEASE_WAIT"] = str(wait)
    try:
        if command == "warm":  # every module a crew run needs imported, no model call
            research().compile()
            return {"ok": "warm"}
        if command == "review-start":
            return {"ok": _output(review().kickoff(inputs={"topic": "owls"}))}
        if command == "review-resume":
            return {"ok": _output(review().resume(args[0], args[1]))}
        if command == "crew":
            key = args[0] if args else None
            crew = research()
            out = crew.kickoff(inputs={"topic": "owls"}, run_key=key) if key else crew.kickoff(
                inputs={"topic": "owls"}, from_checkpoint=True)
            return {"ok": _output(out)}
        if command == "batch":
            total, source = int(args[0]), args[1]
            inputs = [{"topic": f"t{i}"} for i in range(total)]
            kwargs: dict[str, Any] = {"run_key": args[2]} if len(args) > 2 else {
                "from_checkpoint": None if source == "new" else source}
            outs = batch_crew().kickoff_for_each(inputs, max_concurrency=3, **kwargs)
            return {"ok": {"pid": os.getpid(), "raws": [o.raw for o in outs]}}
    except RunLeasedError as exc:
        return {"error": "leased", "message": str(exc), "holder": exc.holder}
    except LeaseLostError as exc:  # stalled past its lease while another process took the run over
        return {"error": "lease_lost", "message": str(exc), "holder": exc.holder, "pid": os.getpid()}
    except BatchError as exc:
        return {"error": "batch", "message": str(exc), "failures": {str(k): v for k, v in exc.failures.items()}}
    except CheckpointError as exc:
        return {"error": "checkpoint", "message": str(exc)}
    raise SystemExit(f"unknown command {command!r}")


def serve() -> None:
    latency = os.environ.get("LEASE_LATENCY", "0.2")
    for line in sys.stdin:
        request = json.loads(line)
        os.environ["LEASE_LATENCY"] = str(request.get("latency", latency))  # this command's model speed
        os.environ.pop("LEASE_GATE", None)
        if request.get("gate"):
            os.environ["LEASE_GATE"] = str(request["gate"])  # this command's Outline waits for that file
        answer = run(request["command"], list(request.get("args", [])), float(request.get("wait", 0)))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        print(json.dumps(run(sys.argv[1], sys.argv[2:], float(os.environ.get("LEASE_APP_WAIT", "0")))), flush=True)
