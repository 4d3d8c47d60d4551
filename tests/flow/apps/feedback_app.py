"""A flow paused for @human_feedback by a provider written as CrewAI's docs write one;
``pause`` kicks it off (and exits), ``resume FLOW_ID FEEDBACK`` continues it in a new process."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from crewgraph.flow import (
    Flow,
    HumanFeedbackPending,
    HumanFeedbackProvider,
    PendingFeedbackContext,
    human_feedback,
    listen,
    start,
)
from crewgraph.flow.persistence import persist


def log(step: str) -> None:
    with Path(os.environ["FLOW_LOG"]).open("a") as f:
        f.write(f"{os.getpid()} {step}\n")


class WebhookProvider(HumanFeedbackProvider):
    """Provider that pauses flow and waits for webhook callback."""

    def __init__(self, webhook_url: str):
        self.webhook_url = webhook_url

    def request_feedback(self, context: PendingFeedbackContext, flow: Flow) -> str:
        log("notified")
        raise HumanFeedbackPending(
            context=context,
            callback_info={"webhook_url": f"{self.webhook_url}/{context.flow_id}"},
        )


class ReviewFlow(Flow):
    @start()
    def load(self):
        log("load")
        self.state["topic"] = "flows"
        return "topic"

    @listen(load)
    @human_feedback(
        message="Review this content:",
        emit=["approved", "rejected"],
        default_outcome="rejected",
        llm="gpt-4o-mini",
        provider=WebhookProvider("https://myapp.com/api"),
    )
    def generate_content(self):
        log("generate")
        return f"AI-generated content about {self.state['topic']}"

    @listen("approved")
    def publish(self, result):
        log("publish")
        return f"Published! ({result.feedback}: {result.output})"

    @listen("rejected")
    def discard(self, result):
        return "Discarded"


@persist()
class PersistedReviewFlow(ReviewFlow):
    """The same flow persisted: it resumes through crewgraph's run journal."""


FLOWS = {"plain": ReviewFlow, "persisted": PersistedReviewFlow}

if __name__ == "__main__":
    kind, command = sys.argv[1], sys.argv[2]
    cls = FLOWS[kind]
    if command == "pause":
        result = cls().kickoff()
        assert isinstance(result, HumanFeedbackPending), result
        print(f"{result.context.flow_id}|{result.callback_info['webhook_url']}")
    else:
        flow = cls.from_pending(sys.argv[3])
        print(flow.resume(sys.argv[4]))
        print(f"history={[(h.method_name, h.outcome) for h in flow.human_feedback_history]}")
