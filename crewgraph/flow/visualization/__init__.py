"""CrewAI's ``crewai.flow.visualization``: a flow's structure as data, and its HTML drawing."""

from crewgraph.flow.visualization.structure import build_flow_structure, visualize_flow_structure
from crewgraph.flow.visualization.types import FlowStructure, NodeMetadata, StructureEdge

__all__ = ["FlowStructure", "NodeMetadata", "StructureEdge", "build_flow_structure", "visualize_flow_structure"]
