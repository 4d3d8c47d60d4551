"""The node contract and the compiled plan (layer 2)."""

from crewgraph.graph.context import NodeContext
from crewgraph.graph.execution_graph import NON_EXECUTION_EDGES, ExecutionGraph
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.graph.reads import OutputText, Reads
from crewgraph.graph.run_record import RunGraph, RunRecord
from crewgraph.graph.run_state import RunState

__all__ = [
    "NON_EXECUTION_EDGES",
    "ExecutionGraph",
    "Node",
    "NodeContext",
    "NodePrefix",
    "NodeResult",
    "OutputText",
    "Reads",
    "RetryPolicy",
    "RunGraph",
    "RunRecord",
    "RunState",
    "TimeoutPolicy",
]
