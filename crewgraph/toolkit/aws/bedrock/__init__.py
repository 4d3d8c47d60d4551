"""CrewAI's ``crewai_tools.aws.bedrock`` path: the Bedrock tools (crewgraph.toolkit.bedrock_tools)."""

from crewgraph.toolkit.bedrock_tools import BedrockInvokeAgentTool, BedrockKBRetrieverTool

__all__ = ["BedrockInvokeAgentTool", "BedrockKBRetrieverTool"]
