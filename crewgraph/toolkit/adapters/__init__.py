"""CrewAI's ``crewai_tools.adapters`` package path (see :mod:`crewgraph.toolkit.adapters.zapier_adapter`)."""
