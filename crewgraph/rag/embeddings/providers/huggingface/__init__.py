"""CrewAI's ``crewai.rag.embeddings.providers.huggingface`` (its spec types are in ``types``)."""
