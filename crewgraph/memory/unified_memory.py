"""CrewAI's import path ``crewai.memory.unified_memory.Memory``."""

from crewgraph.memory.memory import Memory

__all__ = ["Memory"]
