"""CrewAI's experimental features, at ``crewai.experimental``'s import paths."""
