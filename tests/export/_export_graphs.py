"""Tiny hand-built plans and runs for the export tests (no compiler involved)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from crewgraph.graph import ExecutionGraph, Node, NodeContext, NodeResult, RunGraph, RunRecord
from crewgraph.outputs import UsageMetrics


@dataclass(frozen=True, kw_only=True)
class _Base(Node):
    async def run(self, ctx: NodeContext) -> NodeResult:  # pragma: no cover - never run here
        return NodeResult(output=self.id)


@dataclass(frozen=True, kw_only=True)
class AgentStep(_Base):
    kind: ClassVar[str] = "agent_step"
    role: str = "Researcher"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "role": self.role, "tools": {"search"}}


@dataclass(frozen=True, kw_only=True)
class Guardrail(_Base):
    kind: ClassVar[str] = "guardrail"


@dataclass(frozen=True, kw_only=True)
class Convert(_Base):
    kind: ClassVar[str] = "convert"


@dataclass(frozen=True, kw_only=True)
class ToolTemplate(_Base):
    kind: ClassVar[str] = "tool"
    plan_only: ClassVar[bool] = True


@dataclass(frozen=True, kw_only=True)
class ToolCall(_Base):
    kind: ClassVar[str] = "tool"


@dataclass(frozen=True, kw_only=True)
class MemoryRecall(_Base):
    kind: ClassVar[str] = "memory_recall"


@dataclass(frozen=True, kw_only=True)
class MemorySave(_Base):
    kind: ClassVar[str] = "memory_save"


@dataclass(frozen=True, kw_only=True)
class FlowMethod(_Base):
    kind: ClassVar[str] = "flow_method"


@dataclass(frozen=True, kw_only=True)
class Router(_Base):
    kind: ClassVar[str] = "router"


@dataclass(frozen=True, kw_only=True)
class Join(_Base):
    kind: ClassVar[str] = "join"


@dataclass(frozen=True, kw_only=True)
class ManagerStep(_Base):
    kind: ClassVar[str] = "manager_step"


LONG_TASK = (
    'Research the "latest" developments in AI agents and multi-agent orchestration '
    "frameworks, then summarise them for a technical audience"
)


def make_plan() -> ExecutionGraph:
    """recall -> research (may call search) -> guardrail -> convert -> save -> write;
    plus a small flow part: start -> router -(ok)-> join, manager."""
    g = ExecutionGraph(name='Research "crew"')
    g.meta["final"] = "write"
    g.meta["order"] = ("research", "write")
    g.add_node(MemoryRecall(id="recall", label="recall memories"))
    g.add_node(AgentStep(id="research", label=LONG_TASK))
    g.add_node(ToolTemplate(id="tool:search", label="search_web"))
    g.add_node(Guardrail(id="research:guardrail", label="check length"))
    g.add_node(Convert(id="research:convert", label="to Report"))
    g.add_node(MemorySave(id="save", label="save memories"))
    g.add_node(AgentStep(id="write", label="write article", role="Writer"))
    g.add_node(FlowMethod(id="start", label="start"))
    g.add_node(Router(id="route", label="pick path"))
    g.add_node(Join(id="join", label="and"))
    g.add_node(ManagerStep(id="manager", label="manage"))
    g.add_edge("recall", "research", kind="memory")
    g.add_edge("research", "tool:search", kind="may_call")
    g.add_edge("research", "research:guardrail", kind="guardrail")
    g.add_edge("research:guardrail", "research:convert", kind="convert")
    g.add_edge("research:convert", "save", kind="order")
    g.add_edge("research:convert", "write", kind="context")
    g.add_edge("start", "route", kind="listen")
    g.add_edge("route", "join", kind="route", label="ok path")
    g.add_edge("join", "manager", kind="and")
    return g


def make_run() -> RunGraph:
    import networkx as nx  # here, not at module level: collecting the suite then skips networkx

    """research (restored) -> write (completed, 2 tool calls, one retry) -> publish (failed),
    review (skipped), and a pending template tool."""
    graph = nx.DiGraph()

    def add(node_id: str, kind: str, label: str, **fields: Any) -> None:
        graph.add_node(node_id, record=RunRecord(node_id=node_id, kind=kind, label=label, **fields))

    add("research", "agent_step", "research topic", status="restored")
    add(
        "write",
        "agent_step",
        "write article",
        status="completed",
        duration_ms=2345.0,
        usage=UsageMetrics(total_tokens=1234),
        attempts=2,
        executions=1,
    )
    add("write:call1", "tool", "search_web", status="completed", parent="write", duration_ms=120.0)
    add(
        "write:call2",
        "tool",
        "read_file",
        status="failed",
        parent="write",
        error="FileNotFoundError: notes.txt",
    )
    add(
        "publish",
        "agent_step",
        "publish",
        status="failed",
        duration_ms=88.0,
        error='LLMError: 500 "server exploded" while calling the model with a very long message',
    )
    add("review", "guardrail", "review", status="skipped")
    add("tool:search", "tool", "search_web", status="pending")
    graph.add_edge("research", "write", kind="context")
    graph.add_edge("write", "write:call1", kind="spawned")  # runtime joined this one itself
    graph.add_edge("write", "publish", kind="order")
    graph.add_edge("publish", "review", kind="guardrail")
    graph.add_edge("write", "tool:search", kind="may_call")
    return RunGraph(
        run_id="0123456789abcdef",
        name="Research crew",
        graph=graph,
        status="failed",
        error="node publish failed: LLMError",
    )
