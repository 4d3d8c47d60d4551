"""CrewAI's ``crewai.rag.config``: the process-wide RAG configuration (``utils``) and its base type."""
