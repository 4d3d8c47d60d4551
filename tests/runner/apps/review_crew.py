"""A crew whose draft waits for a person's review, run by the pause/resume tests in real processes.

``python review_crew.py start`` -> kicks off; prints the result as JSON (paused: run id + question)
``python review_crew.py resume RUN ANSWER`` -> ``build().resume(RUN, ANSWER)`` in a new process
``python review_crew.py class-resume RUN ANSWER`` -> ``Crew.resume(RUN, ANSWER, path=...)``: the
crew is rebuilt from the factory the run recorded (``review_crew:build``)
The model is the test's local OpenAI-compatible server ($REVIEW_LLM_URL), which counts the calls
of every process; checkpoints go to $REVIEW_DB.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig


def build() -> Crew:
    llm = LLM(model="test", base_url=os.environ["REVIEW_LLM_URL"], api_key="x", max_retries=0)
    writer = Agent(role="Writer", goal="Write about {topic}", backstory="A columnist", llm=llm)
    crew = Crew(
        name="review",
        agents=[writer],
        tasks=[
            Task(name="research", description="Research {topic}", expected_output="notes", agent=writer),
            Task(name="draft", description="Draft a post about {topic}", expected_output="a post",
                 agent=writer, human_input=True),
            Task(name="title", description="Title the post", expected_output="a title", agent=writer),
        ],
        checkpoint=CheckpointConfig(path=os.environ["REVIEW_DB"]),
        input_provider="persisted",
    )
    crew._factory_ref = "review_crew:build"  # what `crewgraph run review_crew:build` records
    return crew


def report(out: Any) -> str:
    return json.dumps({
        "pending": out.pending,
        "run_id": out.run_id,
        "question": getattr(out, "question", None),
        "draft": out.questions[0].draft if out.pending else None,
        "raw": out.raw,
        "tasks": [t.raw for t in out.tasks_output],
        "tokens": out.token_usage.total_tokens,
        "pid": os.getpid(),
    })


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "start":
        print(report(build().kickoff(inputs={"topic": "owls"})))
    elif command == "resume":
        print(report(build().resume(sys.argv[2], sys.argv[3])))
    elif command == "class-resume":
        print(report(Crew.resume(sys.argv[2], sys.argv[3], path=os.environ["REVIEW_DB"])))
