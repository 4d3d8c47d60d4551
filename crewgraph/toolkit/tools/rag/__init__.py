"""CrewAI's ``crewai_tools.tools.rag`` path: ``RagTool`` and the types of its ``config``.

``RagToolConfig`` is CrewAI's ``config=`` shape for the RAG tools:
``embedding_model`` (a ``ProviderSpec``: one of the embedding providers' spec
dicts, accepted wherever an embedder config is) and ``vectordb``
(``VectorDbConfig``). crewgraph's RAG tools index into their own embedded
Qdrant store, so ``vectordb`` may name ``"qdrant"`` (with no settings); a
ChromaDB or a Qdrant server is refused with a message (see
:class:`crewgraph.toolkit.RagTool`).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from crewgraph.rag.embeddings.providers.aws.types import BedrockProviderSpec
from crewgraph.rag.embeddings.providers.cohere.types import CohereProviderSpec
from crewgraph.rag.embeddings.providers.custom.types import CustomProviderSpec
from crewgraph.rag.embeddings.providers.google.types import (
    GenerativeAiProviderSpec,
    VertexAIProviderSpec,
)
from crewgraph.rag.embeddings.providers.huggingface.types import HuggingFaceProviderSpec
from crewgraph.rag.embeddings.providers.ibm.types import WatsonXProviderSpec
from crewgraph.rag.embeddings.providers.instructor.types import InstructorProviderSpec
from crewgraph.rag.embeddings.providers.jina.types import JinaProviderSpec
from crewgraph.rag.embeddings.providers.microsoft.types import AzureProviderSpec
from crewgraph.rag.embeddings.providers.ollama.types import OllamaProviderSpec
from crewgraph.rag.embeddings.providers.onnx.types import ONNXProviderSpec
from crewgraph.rag.embeddings.providers.openai.types import OpenAIProviderSpec
from crewgraph.rag.embeddings.providers.openclip.types import OpenCLIPProviderSpec
from crewgraph.rag.embeddings.providers.roboflow.types import RoboflowProviderSpec
from crewgraph.rag.embeddings.providers.sentence_transformer.types import (
    SentenceTransformerProviderSpec,
)
from crewgraph.rag.embeddings.providers.voyageai.types import VoyageAIProviderSpec
from crewgraph.toolkit.rag_tools import RagTool

__all__ = ["ProviderSpec", "RagTool", "RagToolConfig", "VectorDbConfig"]

ProviderSpec = (
    AzureProviderSpec | BedrockProviderSpec | CohereProviderSpec | CustomProviderSpec | GenerativeAiProviderSpec
    | HuggingFaceProviderSpec | InstructorProviderSpec | JinaProviderSpec | ONNXProviderSpec | OllamaProviderSpec
    | OpenAIProviderSpec | OpenCLIPProviderSpec | RoboflowProviderSpec | SentenceTransformerProviderSpec
    | VertexAIProviderSpec | VoyageAIProviderSpec | WatsonXProviderSpec
)
"""One embedding provider's spec: ``{"provider": ..., "config": {...}}``."""


class VectorDbConfig(TypedDict, total=False):
    """The vector store of a RAG tool's ``config`` (CrewAI's keys)."""

    provider: Literal["chromadb", "qdrant"]
    config: dict[str, Any]


class RagToolConfig(TypedDict, total=False):
    """A RAG tool's ``config=`` (CrewAI's keys; crewgraph also reads ``embedder`` and ``storage``)."""

    embedding_model: ProviderSpec
    vectordb: VectorDbConfig
