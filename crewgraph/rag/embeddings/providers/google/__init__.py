"""CrewAI's ``crewai.rag.embeddings.providers.google`` (its spec types are in ``types``)."""
