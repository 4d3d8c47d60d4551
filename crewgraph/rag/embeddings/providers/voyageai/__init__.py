"""CrewAI's ``crewai.rag.embeddings.providers.voyageai`` (its spec types are in ``types``)."""
