"""CrewAI's ``crewai.rag.embeddings.providers.roboflow`` (its spec types are in ``types``)."""
