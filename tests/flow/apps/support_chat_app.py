"""A conversational flow persisted in SQLite, one turn per process (test_flow_conversational.py).

argv: db path, session id, the FakeLLM script (JSON list), the user's message.
Prints the turn's output, run id, the session's messages and what the router saw.
"""

from __future__ import annotations

import json
import sys

from crewgraph import Flow
from crewgraph.experimental.conversational import (
    ConversationConfig,
    ConversationState,
    RouterConfig,
)
from crewgraph.flow import listen
from crewgraph.flow.persistence import SQLiteFlowPersistence, persist
from crewgraph.testing import FakeLLM

LLM = FakeLLM(json.loads(sys.argv[3]))


@persist(SQLiteFlowPersistence(sys.argv[1]))
@ConversationConfig(llm=LLM, router=RouterConfig())
class SupportFlow(Flow[ConversationState]):
    @listen("ORDER_STATUS")
    def handle_order(self) -> str:
        """Questions about where an order is."""
        return f"Order update after {len(self.state.messages)} messages."


if __name__ == "__main__":
    flow = SupportFlow()
    out = flow.handle_turn(sys.argv[4], session_id=sys.argv[2])
    print(json.dumps({"out": out, "run": flow.run_id, "messages": [m.content for m in flow.state.messages],
                      "router_saw": json.loads(LLM.calls[0].messages[1]["content"])}))
