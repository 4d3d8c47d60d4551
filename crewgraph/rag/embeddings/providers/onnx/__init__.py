"""CrewAI's ``crewai.rag.embeddings.providers.onnx`` (its spec types are in ``types``)."""
