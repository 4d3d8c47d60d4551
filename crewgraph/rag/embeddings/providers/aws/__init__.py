"""CrewAI's ``crewai.rag.embeddings.providers.aws`` (its spec types are in ``types``)."""
