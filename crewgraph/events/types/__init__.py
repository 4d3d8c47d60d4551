"""CrewAI's ``crewai.events.types`` package: one thin module per event family.

Each module re-exports the events of crewgraph's module of the same family
(``crewgraph.events.*_events``) under CrewAI's module name.
"""

__all__: list[str] = []
