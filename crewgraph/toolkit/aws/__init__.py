"""CrewAI's ``crewai_tools.aws`` package path: the AWS tools, re-exported from their crewgraph modules."""

from crewgraph.toolkit.bedrock_tools import BedrockInvokeAgentTool, BedrockKBRetrieverTool
from crewgraph.toolkit.s3_tools import S3ReaderTool, S3WriterTool

__all__ = ["BedrockInvokeAgentTool", "BedrockKBRetrieverTool", "S3ReaderTool", "S3WriterTool"]
