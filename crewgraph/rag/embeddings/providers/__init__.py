"""CrewAI's embedding provider spec types (``crewai.rag.embeddings.providers.*.types``).

Each spec is a ``TypedDict`` — ``{"provider": ..., "config": {...}}`` — so a spec is a plain
dict that ``build_embedder`` and every ``embedder=`` option accept as it is.
"""
