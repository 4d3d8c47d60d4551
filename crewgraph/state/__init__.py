"""CrewAI's ``crewai.state``: its checkpoint API (``CheckpointConfig``, ``JsonProvider``,
``SqliteProvider``) over crewgraph's one checkpoint store."""

from crewgraph.state.checkpoint_config import CheckpointConfig, CheckpointEventType
from crewgraph.state.provider import JsonProvider, SqliteProvider

__all__ = ["CheckpointConfig", "CheckpointEventType", "JsonProvider", "SqliteProvider"]
