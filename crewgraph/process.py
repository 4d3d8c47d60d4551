"""CrewAI's import path ``crewai.process.Process``: a thin re-export of :class:`crewgraph.spec.process.Process`."""

from crewgraph.spec.process import Process

__all__ = ["Process"]
