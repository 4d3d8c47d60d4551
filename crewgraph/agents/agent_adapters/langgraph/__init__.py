"""CrewAI's import path ``crewai.agents.agent_adapters.langgraph``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""
