"""CrewAI's ``crewai.rag.core``: the protocols of an embedding function and a vector-store client."""
