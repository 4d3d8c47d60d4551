"""What a node reads of other nodes' outputs: part of the node contract (``Node.reads``).

The scheduler hands every node its upstream outputs and a read-only view of the whole
run's outputs (``ctx.results``). A local run pays nothing for that view; an executor that
ships a step to another process (Ray) would have to send all of it, every output of the
run so far with every step, unless it knows what the step reads. So a node says:

- by default, it reads its upstream outputs (whole) and nothing else;
- ``Reads.upstream``: the upstream nodes whose whole output it reads, when that is not all
  of them (an agent step reads its memory, knowledge, reasoning and plan nodes whole; the
  previous task, upstream only to order the tasks, it reads as context text or not at all);
- ``Reads.outputs``: nodes whose whole output it reads through ``ctx.output_of``, whether
  or not they are upstream of it (a conditional task's condition reads the previous task's
  output, which its user function gets whole);
- ``Reads.texts``: nodes whose output it reads *only as context text*, the task's name and
  raw text (:class:`OutputText`, what ``nodes._context.context_entry`` reads), upstream of
  it or not. An upstream node listed here (and not in ``outputs``) is read as text only,
  so an executor may send its :class:`OutputText` instead of the whole output (a
  ``TaskOutput`` carries its messages, i.e. its whole prompt).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["NO_READS", "OutputText", "Reads"]


@dataclass(frozen=True, slots=True)
class Reads:
    """What a node reads beyond its upstream outputs (see the module docstring)."""

    outputs: Sequence[str] = ()
    """Nodes whose whole output the node reads (``ctx.output_of``), upstream or not."""
    upstream: Sequence[str] | None = None
    """The upstream nodes whose whole output it reads; None: every one of them."""
    texts: Sequence[str] = ()
    """Nodes whose output the node reads only as :class:`OutputText` (a tuple, or the
    ``NodePrefix`` of a sequential task's default context), upstream or not."""


NO_READS = Reads()
"""A node that reads its upstream outputs and nothing else (the default)."""


@dataclass(frozen=True, slots=True)
class OutputText:
    """One output as a task's context reads it: the name it goes under, and its text.

    ``name`` and ``raw`` are what a ``TaskOutput`` would give (so a context built from
    ``OutputText`` stand-ins is the same text as one built from the outputs)."""

    name: str
    raw: str

    @classmethod
    def of(cls, output: Any, node_id: str) -> OutputText:
        """The text of ``output`` (produced by node ``node_id``): its task's name (or summary,
        or the node id) and its raw text (or ``str(output)``)."""
        if type(output) is OutputText:
            return output
        name = getattr(output, "name", None) or getattr(output, "summary", "") or node_id
        return cls(name, getattr(output, "raw", str(output)))
