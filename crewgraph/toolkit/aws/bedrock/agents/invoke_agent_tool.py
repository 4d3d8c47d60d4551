"""CrewAI's ``crewai_tools.aws.bedrock.agents.invoke_agent_tool`` path (crewgraph.toolkit.bedrock_tools)."""

from crewgraph.toolkit.bedrock_tools import BedrockInvokeAgentTool

__all__ = ["BedrockInvokeAgentTool"]
