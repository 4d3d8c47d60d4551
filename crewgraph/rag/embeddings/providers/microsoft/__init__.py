"""CrewAI's ``crewai.rag.embeddings.providers.microsoft`` (its spec types are in ``types``)."""
