"""CrewAI's ``crewai.rag.embeddings.providers.sentence_transformer`` (its spec types are in ``types``)."""
