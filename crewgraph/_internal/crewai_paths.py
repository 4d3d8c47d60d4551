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

The alias (``crewgraph.compat``) also reads, keyed by CrewAI's spelling:

``PACKAGES``       CrewAI's top-level packages -> the crewgraph package their modules map into.
``MODULES``        CrewAI modules whose crewgraph module is not the path rule's.
``NAMES``          names that carry CrewAI's name in CrewAI and crewgraph's in crewgraph.
``MOVED``          old paths real projects still use: importing works and warns, naming the new path.
"""

from __future__ import annotations

__all__ = ["ABSENT", "ABSENT_MODULES", "MODULES", "MOVED", "NAMES", "PACKAGES", "PATHS"]

_PLATFORM = "a CrewAI AMP (hosted platform) feature; crewgraph runs on your own machines only"

PATHS: dict[str, dict[str, str]] = {
    "crewgraph.tasks.task_output": {"TaskOutput": "crewgraph.outputs"},
    "crewgraph.crews.crew_output": {"CrewOutput": "crewgraph.outputs"},
}

ABSENT: dict[str, dict[str, str]] = {}

ABSENT_MODULES: dict[str, str] = {}

PACKAGES: dict[str, str] = {
    "crewai": "crewgraph",
    "crewai_tools": "crewgraph.toolkit",
}
"""CrewAI's top-level packages and the crewgraph package each one's modules map into."""

MODULES: dict[str, str] = {
    # CrewAI's pre-1.0 home of the events, still re-exported by CrewAI and used by real projects.
    "crewai.utilities.events": "crewgraph.events",
    "crewai.utilities.events.base_event_listener": "crewgraph.events.base_event_listener",
    "crewai.utilities.events.crewai_event_bus": "crewgraph.events.event_bus",
}
"""CrewAI modules whose crewgraph module is not the path rule's (CrewAI path -> crewgraph module)."""

NAMES: dict[str, str] = {
    "crewai_event_bus": "crewgraph_event_bus",
    "CrewAIEventsBus": "CrewGraphEventsBus",
}
"""Names that carry CrewAI's name in CrewAI and crewgraph's in crewgraph (CrewAI name -> ours)."""

MOVED: dict[str, dict[str, str]] = {
    # CrewAI's examples still write `from crewai_tools import BaseTool`; the class lives in crewai.tools.
    "crewai_tools": {"BaseTool": "crewai.tools", "tool": "crewai.tools"},
}
"""Old paths real projects still use: CrewAI module -> {name: CrewAI module it moved to}.
Importing a name from its old path works and warns (DeprecationWarning) naming the new path."""
