"""CrewAI's import path ``crewai.types.usage_metrics.UsageMetrics``."""

from crewgraph.outputs import UsageMetrics

__all__ = ["UsageMetrics"]
