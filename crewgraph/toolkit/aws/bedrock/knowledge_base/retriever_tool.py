"""CrewAI's ``crewai_tools.aws.bedrock.knowledge_base.retriever_tool`` path (crewgraph.toolkit.bedrock_tools)."""

from crewgraph.toolkit.bedrock_tools import BedrockKBRetrieverTool

__all__ = ["BedrockKBRetrieverTool"]
