"""Which of a turn's tool calls actually run.

Small models repeat themselves: one reply of a 0.5B model held the same call
28 times, and a calculator crew made the same call six turns in a row until
``max_iter``. Running each copy costs time (and, for a tool with effects, does
the thing 28 times) and teaches the model nothing. So, per turn:

- identical calls in one reply (same tool, same arguments) run once, and each
  copy's call id gets that one result (servers want an answer per call id);
- a call an earlier turn of the same step already made successfully with the
  same arguments is not run again when the run's tool cache holds its result
  (the cache is on and the tool's ``cache_function`` kept it): it is answered
  from that result, with a reminder saying so and what to do instead, where
  the cache alone would hand the model the same text without a word; without
  the cache the call runs again (the tool may answer differently) and its
  result ends with :data:`AGAIN_NOTE`.

Pure bookkeeping: the agent step spawns the calls in :attr:`CallPlan.to_run`
and records the rest in its pending list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["AGAIN_NOTE", "REPLAYED", "CallPlan", "call_key", "plan", "reminder"]

REPLAYED = "<answered from an earlier result>"
"""The node id of a pending entry that was not run (its text is in the loop's ``replayed``)."""


AGAIN_NOTE = (
    "(You already made this exact call earlier in this task: use its result, call something else, "
    "or give your final answer.)"
)


def call_key(call: Any) -> str | None:
    """The identity of a call: its tool name (case-folded) and its arguments, canonical JSON;
    None when its arguments are not a JSON object (such calls always run, to get their error)."""
    try:
        args = call.parsed_arguments()
    except ValueError:
        return None
    if args is None:
        return None
    return f"{str(call.name).strip().lower()}|{json.dumps(args, sort_keys=True, default=str)}"


def reminder(name: str, result: str) -> str:
    """What the model reads for a call it already made: the earlier result, and what to do."""
    return (
        f"You already called {name} with exactly these arguments earlier in this task; it was not run "
        f"again. Its result was:\n{result}\n"
        "Use this result: call a different tool or the same one with different arguments if you need "
        "more, or give your final answer."
    )


@dataclass
class CallPlan:
    """The calls to run, and for every call of the turn where its answer comes from."""

    to_run: list[Any] = field(default_factory=list)
    entries: list[tuple[str, Any, str | None, int | None]] = field(default_factory=list)
    """Per call of the turn, in order: (kind, call, key, index into ``to_run`` of the run it
    shares); kind is ``run``, ``dup`` or ``replay``."""
    replies: dict[str, str] = field(default_factory=dict)
    """The reminder text of each call answered from an earlier result, by call id."""
    duplicates: int = 0

    def pending(self, node_ids: Sequence[str]) -> list[tuple[str, str, str, str | None]]:
        """The agent step's pending entries (node id, call id, name, key) given the spawned nodes'
        ids, in ``to_run`` order. The key is set on the running entry only, so one result is
        remembered once."""
        out: list[tuple[str, str, str, str | None]] = []
        for kind, call, key, index in self.entries:
            if kind == "replay":
                out.append((REPLAYED, call.id, call.name, None))
            else:
                assert index is not None
                out.append((node_ids[index], call.id, call.name, key if kind == "run" else None))
        return out


def plan(calls: Sequence[Any], seen: Mapping[str, tuple[str, bool]]) -> CallPlan:
    """Decide, for ``calls`` (one turn), which run; ``seen`` maps keys of earlier successful
    calls to their results and whether the tool cache kept each."""
    result = CallPlan()
    first: dict[str, int] = {}
    for call in calls:
        key = call_key(call)
        if key is not None and key in seen and seen[key][1]:
            result.entries.append(("replay", call, key, None))
            result.replies[call.id] = reminder(call.name, seen[key][0])
        elif key is not None and key in first:
            result.entries.append(("dup", call, key, first[key]))
            result.duplicates += 1
        else:
            index = len(result.to_run)
            result.to_run.append(call)
            if key is not None:
                first[key] = index
            result.entries.append(("run", call, key, index))
    return result
