"""CrewAI's import path ``crewai.agents.agent_adapters.openai_agents``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""
