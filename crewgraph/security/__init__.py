"""CrewAI's ``crewai.security``: fingerprints and the security config of agents, tasks, crews."""

from crewgraph.security.fingerprint import Fingerprint
from crewgraph.security.security_config import SecurityConfig

__all__ = ["Fingerprint", "SecurityConfig"]
