"""One module per node kind (layer 3). Each is a frozen dataclass with ``async run(ctx)``."""

# Names load on first access: importing one node module must not import every node kind.

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph._internal.lazy import lazy_getattr

if TYPE_CHECKING:
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

_EXPORTS = {
    "AgentStepNode": "crewgraph.nodes.agent_step",
    "ConvertNode": "crewgraph.nodes.convert",
    "DelegatedStepNode": "crewgraph.nodes.manager_step",
    "FlowMethodNode": "crewgraph.nodes.flow_method",
    "GuardrailNode": "crewgraph.nodes.guardrail",
    "GuardrailVerdict": "crewgraph.nodes.guardrail",
    "JoinNode": "crewgraph.nodes.join",
    "ManagerStepNode": "crewgraph.nodes.manager_step",
    "MemoryRecallNode": "crewgraph.nodes.memory_recall",
    "MemorySaveNode": "crewgraph.nodes.memory_save",
    "PlanningNode": "crewgraph.nodes.planning",
    "RouterNode": "crewgraph.nodes.router",
    "ToolCallNode": "crewgraph.nodes.tool_call",
    "ToolCallOutcome": "crewgraph.nodes.tool_call",
    "ToolTemplateNode": "crewgraph.nodes.tool_call",
}

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


__getattr__ = lazy_getattr(__name__, _EXPORTS)
