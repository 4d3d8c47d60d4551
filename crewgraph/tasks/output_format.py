"""CrewAI's import path ``crewai.tasks.output_format.OutputFormat``."""

from crewgraph.outputs import OutputFormat

__all__ = ["OutputFormat"]
