"""CrewAI's ``crewai_tools.aws.bedrock.agents`` path."""

from crewgraph.toolkit.bedrock_tools import BedrockInvokeAgentTool

__all__ = ["BedrockInvokeAgentTool"]
