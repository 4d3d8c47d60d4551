"""CrewAI's ``crewai.rag.embeddings.providers.custom`` (its spec types are in ``types``)."""
