"""A CrewAI-style flow script: ``python -m ... run|resume|fork PROVIDER LOCATION [CHECKPOINT]``.

``run`` fails in ``step_two``; ``resume`` continues from CrewAI's checkpoint CHECKPOINT (a JSON
file or ``<db>#<id>``) in a new process; ``fork`` continues a copy on branch ``try-b``.
"""

from __future__ import annotations

import json
import os
import sys

from crewgraph.flow import Flow, listen, start
from crewgraph.state import CheckpointConfig, JsonProvider, SqliteProvider

CALLS: list[str] = []


class ReportFlow(Flow):
    @start()
    def step_one(self) -> str:
        CALLS.append("one")
        self.state["topic"] = "flows"
        return "data"

    @listen(step_one)
    def step_two(self, data: str) -> str:
        CALLS.append("two")
        if os.environ.get("REPORT_FAIL") == "1":
            raise RuntimeError("down")
        return f"processed {data} on {self.state['topic']}"


def main() -> None:
    action, kind, location = sys.argv[1:4]
    provider = SqliteProvider() if kind == "sqlite" else JsonProvider()
    if action == "run":
        flow = ReportFlow(checkpoint=CheckpointConfig(location=location, provider=provider,
                                                       on_events=["method_execution_finished"]))
        try:
            flow.kickoff()
        except RuntimeError as exc:
            print(json.dumps({"failed": str(exc), "run_id": flow.run_id}))
        return
    config = CheckpointConfig(restore_from=sys.argv[4], provider=provider, on_events=["method_execution_finished"])
    flow = ReportFlow.fork(config, branch="try-b") if action == "fork" else ReportFlow.from_checkpoint(config)
    print(json.dumps({"result": flow.kickoff(), "calls": CALLS, "run_id": flow.run_id}))


if __name__ == "__main__":
    main()
