"""Running crews beyond one event loop: batches of whole crew runs (here or on Ray).

``crew.kickoff_for_each(inputs, executor=..., max_concurrency=..., from_checkpoint=...)``
and ``crew.kickoff_for_each_iter(...)`` (results as they finish, a :class:`BatchRun` of
:class:`BatchResult`) are documented in docs/distributed.md, "Batches". Importing this
package does not import Ray.
"""

from crewgraph.distributed._batch_iter import BatchRun
from crewgraph.distributed._batch_types import BatchResult

__all__ = ["BatchResult", "BatchRun"]
