"""Definitions users write: Agent, Task, Process (layer 3, pure pydantic models)."""

from crewgraph.spec.agent import Agent
from crewgraph.spec.process import Process
from crewgraph.spec.task import Task

__all__ = ["Agent", "Process", "Task"]
