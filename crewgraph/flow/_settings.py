"""CrewAI's ``Flow`` fields given to the constructor: which crewgraph honours, and which it refuses.

CrewAI 1.15's ``Flow`` is a pydantic model, so ``Flow(name=..., max_method_calls=...)``
sets its fields. crewgraph's ``Flow`` takes the same keywords: ``name``,
``initial_state``, ``max_method_calls`` and ``input_provider`` override the
class attributes for this instance; ``human_feedback_history`` /
``last_human_feedback`` seed the feedback history; ``execution_context`` and
``defer_trace_finalization`` are kept as given (crewgraph has no deferred trace
batch to hold back: each kickoff's spans end with it). What crewgraph does
not implement is refused with a message rather than silently ignored.
"""

from __future__ import annotations

from typing import Any

from crewgraph.flow._sentinels import UNSET

__all__ = ["apply_settings"]

_RESTORE = ("crewgraph restores a checkpointed flow through its run journal: use "
            "Flow.from_checkpoint(CheckpointConfig(restore_from=...)) or RuntimeState.from_checkpoint")


def apply_settings(flow: Any, given: dict[str, Any]) -> None:
    """Apply the CrewAI field keywords in ``given`` to ``flow`` (refusing what is not supported)."""
    for key in ("name", "initial_state", "input_provider", "execution_context"):
        if given[key] is not None:
            setattr(flow, key, given[key])
    if given["max_method_calls"] is not UNSET:
        flow.max_method_calls = given["max_method_calls"]
    if given["entity_type"] != "flow":
        raise ValueError(f"Flow(entity_type={given['entity_type']!r}): a flow's entity_type is 'flow'")
    if given["stream"]:
        raise ValueError("Flow(stream=True) is not supported by crewgraph: call flow.stream_events(inputs) "
                         "(or astream) for a stream of the run's chunks and its result")
    if given["suppress_flow_events"]:
        raise ValueError("Flow(suppress_flow_events=True) is not supported by crewgraph: its flow events "
                         "are what the CLI, the web UI and tracing read; filter them in your handler")
    if given["defer_trace_finalization"]:
        flow.defer_trace_finalization = True
    for key in ("checkpoint_completed_methods", "checkpoint_method_outputs", "checkpoint_method_counts"):
        if given[key]:
            raise ValueError(f"Flow({key}=...) is not supported: {_RESTORE}")
    history = given["human_feedback_history"]
    if history:
        flow.human_feedback_history.extend(history)
    last = given["last_human_feedback"]
    if last is not None and (not flow.human_feedback_history or flow.human_feedback_history[-1] is not last):
        flow.human_feedback_history.append(last)
