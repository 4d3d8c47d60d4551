"""CrewAI's ``crewai.rag.embeddings.providers.instructor`` (its spec types are in ``types``)."""
