"""A crew definition to the plan it runs: compile (validation included), then planning.

``Crew.compile()``, a kickoff and a checkpoint resume all build the plan here,
so the three always agree on the node ids a checkpoint restores by.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.spec.crew import CrewSpec

__all__ = ["compile_plan"]


def compile_plan(crew: CrewSpec, inputs: dict[str, Any] | None = None) -> ExecutionGraph:
    """Validate ``crew`` and return its plan. With ``inputs``, also check placeholders."""
    from crewgraph.compiler import compile_crew

    graph = compile_crew(crew, inputs)
    if crew.planning:
        from crewgraph.compiler.planning import add_planning

        add_planning(graph, crew)
    return graph
