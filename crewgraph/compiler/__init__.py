"""Crews and flows to ExecutionGraphs, with validation (layer 4).

Names load on first access, so defining a Flow class does not import the crew
compiler (and its node modules), and compiling a crew does not import the
flow compiler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph._internal.lazy import lazy_getattr

if TYPE_CHECKING:
    from crewgraph.compiler.crew_compiler import TaskPlan, compile_crew, task_key
    from crewgraph.compiler.flow_compiler import (
        FlowCompileWarning,
        FlowMethodSpec,
        FlowSpec,
        TriggerSpec,
        compile_flow,
        validate_flow,
    )
    from crewgraph.compiler.validate import validate_crew

_EXPORTS = {
    "FlowCompileWarning": "crewgraph.compiler.flow_compiler",
    "FlowMethodSpec": "crewgraph.compiler.flow_compiler",
    "FlowSpec": "crewgraph.compiler.flow_compiler",
    "TaskPlan": "crewgraph.compiler.crew_compiler",
    "TriggerSpec": "crewgraph.compiler.flow_compiler",
    "compile_crew": "crewgraph.compiler.crew_compiler",
    "compile_flow": "crewgraph.compiler.flow_compiler",
    "task_key": "crewgraph.compiler.crew_compiler",
    "validate_crew": "crewgraph.compiler.validate",
    "validate_flow": "crewgraph.compiler.flow_compiler",
}

__all__ = [
    "FlowCompileWarning",
    "FlowMethodSpec",
    "FlowSpec",
    "TaskPlan",
    "TriggerSpec",
    "compile_crew",
    "compile_flow",
    "task_key",
    "validate_crew",
    "validate_flow",
]


__getattr__ = lazy_getattr(__name__, _EXPORTS)
