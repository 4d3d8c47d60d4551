"""CrewAI's ``crewai.rag.embeddings.providers.openclip`` (its spec types are in ``types``)."""
