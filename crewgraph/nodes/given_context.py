"""``given_context``: text handed to a standalone task run as its context.

``Task.execute_sync(context="...")`` and ``Agent.execute_task(task, context)``
give a task context that no task of the run produced. It enters the graph as
this node, upstream of the task's step, so the step reads it exactly as it
reads an earlier task's output, and the executed graph shows where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.outputs import TaskOutput

__all__ = ["GivenContextNode"]


@dataclass(frozen=True, kw_only=True)
class GivenContextNode(Node):
    """Outputs ``text`` as a TaskOutput named ``name`` (what context formatting reads)."""

    kind: ClassVar[str] = "given_context"

    text: str
    name: str = "context"

    async def run(self, ctx: NodeContext) -> NodeResult:
        return NodeResult(output=TaskOutput(description=self.name, name=self.name, raw=self.text))
