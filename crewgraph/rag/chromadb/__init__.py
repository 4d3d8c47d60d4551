"""CrewAI's ``crewai.rag.chromadb``: ChromaDB as the RAG store (the ``chromadb`` extra)."""
