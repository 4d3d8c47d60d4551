"""The context variables a CrewAI ``ExecutionContext`` snapshot is made of (``crewgraph.context``).

Data only, at the bottom layer, so the nodes that set them (an agent's task step, a flow
method) and the public snapshot functions above them share one set. Context variables, as
CrewAI's: they follow a task into ``asyncio.to_thread`` workers and the tasks it starts, and
two runs side by side never see each other's values.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["current_flow_id", "current_flow_method_name", "current_flow_request_id", "current_task_id",
           "platform_integration_token"]

current_task_id: ContextVar[str | None] = ContextVar("crewgraph_current_task_id", default=None)
"""The id (``str(task.id)``) of the task whose agent is working, while it works."""

current_flow_request_id: ContextVar[str | None] = ContextVar("crewgraph_flow_request_id", default=None)
"""The run id of the flow kickoff a method runs in."""

current_flow_id: ContextVar[str | None] = ContextVar("crewgraph_flow_id", default=None)
"""The id of the flow's state (``flow.state.id``), which persists across its runs."""

current_flow_method_name: ContextVar[str] = ContextVar("crewgraph_flow_method_name", default="unknown")
"""The flow method running (CrewAI's default ``"unknown"`` outside of one)."""

platform_integration_token: ContextVar[str | None] = ContextVar("crewgraph_platform_integration_token",
                                                                 default=None)
"""The integration token of the platform that launched the run (``set_platform_integration_token``)."""
