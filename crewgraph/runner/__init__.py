"""The one run path below the facades (layer 4½: above compiler/, runtime/, checkpoint/).

Every way of running agents ends here: ``Crew.kickoff`` and its forms,
streaming, checkpoint resume, ``Task.execute_sync`` and ``Agent.kickoff``.
Definitions come in as spec objects (``CrewSpec``, ``Task``, ``Agent``), so
nothing here imports ``crewgraph.crew``, ``flow/`` or ``project/``; see
docs/architecture.md, "The path of one kickoff". Importing this package
loads nothing heavy.
"""

from __future__ import annotations

from crewgraph.runner.crew_run import run_crew
from crewgraph.runner.plan import compile_plan

__all__ = ["compile_plan", "run_crew"]
