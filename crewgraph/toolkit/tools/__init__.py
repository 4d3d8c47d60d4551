"""CrewAI's ``crewai_tools.tools`` package path (its tools are in :mod:`crewgraph.toolkit`)."""
