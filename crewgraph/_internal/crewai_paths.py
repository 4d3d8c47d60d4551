"""CrewAI's import paths in crewgraph: the one table every CrewAI-path module is served from.

Data only, so anything may import it cheaply (the mirror modules at CrewAI's paths, the opt-in
``crewai`` import alias in ``crewgraph.compat``, the conformance test). The path rule is
``crewai.X`` -> ``crewgraph.X``; the table is keyed by the crewgraph spelling.

``PATHS``          module -> {public name: where it lives}. The value is the real module
                   (``"crewgraph.outputs"``) or ``"module:attribute"`` when CrewAI's name differs
                   from ours. A mirror module is one line (``crewgraph._internal.facade``);
                   names load on first access, so a façade never imports more than is used.
``ABSENT``         module -> {name: why crewgraph deliberately lacks it}; importing the name
                   raises ``ImportError`` with the reason (docs/porting.md lists them).
``ABSENT_MODULES`` whole CrewAI modules crewgraph lacks -> why (same ImportError on import).
"""

from __future__ import annotations

__all__ = ["ABSENT", "ABSENT_MODULES", "PATHS"]

_PLATFORM = "a CrewAI AMP (hosted platform) feature; crewgraph runs on your own machines only"

PATHS: dict[str, dict[str, str]] = {
    "crewgraph.tasks.task_output": {"TaskOutput": "crewgraph.outputs"},
    "crewgraph.crews.crew_output": {"CrewOutput": "crewgraph.outputs"},
}

ABSENT: dict[str, dict[str, str]] = {}

ABSENT_MODULES: dict[str, str] = {}
