"""CrewAI's ``crewai.rag.qdrant``: the default, native vector store (``QdrantConfig``, its client)."""
