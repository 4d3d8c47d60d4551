"""A CrewAI-style crew script for the checkpoint tests: ``python -m ... run|resume LOCATION [FILE]``.

``run`` fails in its second task (the fake provider goes down), leaving CrewAI's checkpoint
files under LOCATION; ``resume`` continues from the checkpoint FILE in a new process.
"""

from __future__ import annotations

import json
import sys

from crewgraph import Agent, Crew, Task
from crewgraph.state import CheckpointConfig
from crewgraph.testing import FakeLLM


def build(llm: FakeLLM, location: str) -> Crew:
    researcher = Agent(role="Researcher", goal="Research", backstory="Expert", llm=llm, max_retry_limit=0)
    writer = Agent(role="Writer", goal="Write", backstory="Expert", llm=llm, max_retry_limit=0)
    return Crew(
        name="trends",
        agents=[researcher, writer],
        tasks=[
            Task(name="research", description="Research AI trends", agent=researcher, expected_output="bullets"),
            Task(name="summary", description="Write a summary", agent=writer, expected_output="paragraph"),
        ],
        checkpoint=CheckpointConfig(location=location, on_events=["task_completed", "crew_kickoff_completed"]),
    )


def main() -> None:
    action, location = sys.argv[1], sys.argv[2]
    if action == "run":
        try:
            build(FakeLLM(["- bullets", RuntimeError("provider down")]), location).kickoff()
        except Exception as exc:
            print(json.dumps({"failed": str(exc)[:60]}))
        return
    llm = FakeLLM(["the summary"])
    out = build(llm, location).kickoff(from_checkpoint=CheckpointConfig(restore_from=sys.argv[3]))
    print(json.dumps({"raw": out.raw, "run_id": out.run_id, "calls": len(llm.calls)}))


if __name__ == "__main__":
    main()
