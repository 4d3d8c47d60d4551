"""One module per node kind (layer 3). Each is a frozen dataclass with ``async run(ctx)``."""

from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.nodes.convert import ConvertNode
from crewgraph.nodes.flow_method import FlowMethodNode
from crewgraph.nodes.guardrail import GuardrailNode, GuardrailVerdict
from crewgraph.nodes.join import JoinNode
from crewgraph.nodes.manager_step import DelegatedStepNode, ManagerStepNode
from crewgraph.nodes.memory_recall import MemoryRecallNode
from crewgraph.nodes.memory_save import MemorySaveNode
from crewgraph.nodes.planning import PlanningNode
from crewgraph.nodes.router import RouterNode
from crewgraph.nodes.tool_call import ToolCallNode, ToolCallOutcome, ToolTemplateNode

__all__ = [
    "AgentStepNode",
    "ConvertNode",
    "DelegatedStepNode",
    "FlowMethodNode",
    "GuardrailNode",
    "GuardrailVerdict",
    "JoinNode",
    "ManagerStepNode",
    "MemoryRecallNode",
    "MemorySaveNode",
    "PlanningNode",
    "RouterNode",
    "ToolCallNode",
    "ToolCallOutcome",
    "ToolTemplateNode",
]
