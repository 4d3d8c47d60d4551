"""Crew projects: ``@CrewBase`` classes with YAML agents/tasks and CrewAI's decorators,
and CrewAI's JSON-first projects (``crew.jsonc`` + ``agents/*.jsonc``, :func:`load_json_crew`).

``from crewgraph.project import CrewBase, agent, crew, task`` is the import a
CrewAI project uses (with ``crewai`` read as ``crewgraph``).
"""

from crewgraph.project._resolve import ProjectConfigWarning
from crewgraph.project.annotations import (
    after_kickoff,
    agent,
    before_kickoff,
    cache_handler,
    callback,
    crew,
    llm,
    memoize,
    output_json,
    output_pydantic,
    task,
    tool,
)
from crewgraph.project.crew_base import CrewBase, find_crew_method, is_crew_class
from crewgraph.project.json_project import JsonCrewProject, load_json_crew

__all__ = [
    "CrewBase",
    "JsonCrewProject",
    "ProjectConfigWarning",
    "after_kickoff",
    "agent",
    "before_kickoff",
    "cache_handler",
    "callback",
    "crew",
    "find_crew_method",
    "is_crew_class",
    "llm",
    "load_json_crew",
    "memoize",
    "output_json",
    "output_pydantic",
    "task",
    "tool",
]
