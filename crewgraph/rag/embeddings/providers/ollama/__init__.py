"""CrewAI's ``crewai.rag.embeddings.providers.ollama`` (its spec types are in ``types``)."""
