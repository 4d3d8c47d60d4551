"""CrewAI's ``crewai.rag.embeddings.providers.ibm`` (its spec types are in ``types``)."""
