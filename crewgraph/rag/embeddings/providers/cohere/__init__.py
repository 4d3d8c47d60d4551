"""CrewAI's ``crewai.rag.embeddings.providers.cohere`` (its spec types are in ``types``)."""
