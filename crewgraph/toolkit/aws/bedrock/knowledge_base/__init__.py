"""CrewAI's ``crewai_tools.aws.bedrock.knowledge_base`` path."""

from crewgraph.toolkit.bedrock_tools import BedrockKBRetrieverTool

__all__ = ["BedrockKBRetrieverTool"]
