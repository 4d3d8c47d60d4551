"""CrewAI's ``crewai.rag.embeddings.providers.openai`` (its spec types are in ``types``)."""
