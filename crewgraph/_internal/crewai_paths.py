"""CrewAI's import paths, as data: the one table every CrewAI-path consumer reads.

CrewAI code names ``crewai.X`` and ``crewai_tools.X``; crewgraph serves them as
``crewgraph.X`` and ``crewgraph.toolkit.X`` (:data:`PACKAGES`, the path rule).
The few places where the rule does not fit are listed here rather than in the
code that uses them: the opt-in ``crewai`` import alias (``crewgraph.compat``)
resolves through this table, so a path added here works under the alias too.
Data only: no imports, nothing runs.
"""

from __future__ import annotations

__all__ = ["MODULES", "MOVED", "NAMES", "PACKAGES"]

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
