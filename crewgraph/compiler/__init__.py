"""Crews and flows to ExecutionGraphs, with validation (layer 4)."""

from crewgraph.compiler.crew_compiler import TaskPlan, compile_crew, task_key
from crewgraph.compiler.validate import validate_crew

__all__ = ["TaskPlan", "compile_crew", "task_key", "validate_crew"]
