"""Ray as an execution backend for the same compiled graphs (the ``ray`` extra).

The scheduler stays the one coordinator: ordering, joins, retries, timeouts,
events and checkpoints stay where the run was started (the driver). A
:class:`RayExecutor` only decides *where one node step runs*: the node and the
slice of the run it reads travel to a Ray worker by cloudpickle, the step runs
there, and its result and events come back to the driver::

    from crewgraph.distributed import RayExecutor

    crew.kickoff(inputs={...}, executor=RayExecutor(address="auto"))

Batches of whole crew runs (``crew.kickoff_for_each(inputs, executor=...)`` and
``crew.kickoff_for_each_iter(...)``, a :class:`BatchRun` of :class:`BatchResult`)
are documented in docs/distributed.md, "Batches".

Importing this package does not import ``ray``; connecting does (and names
``crewgraph[ray]`` when it is missing).
"""

from __future__ import annotations

from crewgraph.distributed._batch_iter import BatchRun
from crewgraph.distributed._batch_types import BatchResult
from crewgraph.distributed._executor import RayExecutor, WorkerLostError

__all__ = ["BatchResult", "BatchRun", "RayExecutor", "WorkerLostError"]
