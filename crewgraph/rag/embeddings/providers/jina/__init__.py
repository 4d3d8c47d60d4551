"""CrewAI's ``crewai.rag.embeddings.providers.jina`` (its spec types are in ``types``)."""
