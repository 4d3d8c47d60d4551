"""CrewAI fields crewgraph does not implement, and the error that says so.

A porting user's definitions may set any field of CrewAI's ``Agent``, ``Task``
or ``Crew``. A field crewgraph does not implement must not be accepted and
silently ignored: setting it raises a ``ValueError`` (a pydantic
``ValidationError`` from the model) that names the field and says why. Left at
CrewAI's default (``None``, ``False``, an empty list...), as YAML files and
generated templates often do, it is dropped quietly, because it asks for
nothing. A field that a model declares itself is never in the way: the model
field wins, so implementing one means adding the field, not editing this table.
docs/porting.md lists the same fields.
"""

from __future__ import annotations

from typing import Any

__all__ = ["UNSUPPORTED", "reject_unsupported"]

_PLATFORM = "a CrewAI AMP / platform feature"
_EXECUTOR = "a CrewAI executor internal; crewgraph's engine does this itself"
_RUN_STATE = "run state in CrewAI, not a definition; crewgraph reports it in TaskOutput and the run graph"
_COUNTED = "run state: the engine records it on the task as it runs (read `task.<name>`); it cannot be given"
_CHECKPOINT_STATE = "state CrewAI's checkpoints restore; crewgraph's checkpoints keep the run's own state"
_TEMPLATES = "raw prompt templates do not apply: crewgraph sends role-tagged chat messages (use system_template)"

_AGENT_ONLY: dict[str, tuple[tuple[Any, ...], str]] = {
    "prompt_template": ((), _TEMPLATES),
    "response_template": ((), _TEMPLATES),
    "use_system_prompt": ((True,), "every crewgraph agent sends a system prompt"),
    "a2a": ((), "agent-to-agent delegation to remote agents is not supported"),
    "from_repository": ((), _PLATFORM),
    "executor_class": ((), _EXECUTOR),
    "agent_knowledge_context": ((), _EXECUTOR),
    "crew_knowledge_context": ((), _EXECUTOR),
    "knowledge_search_query": ((), _EXECUTOR),
    "use_better_compaction": ((True,), "crewgraph always handles a full context window its own way "
                              "(respect_context_window summarises, then trims, the oldest turns)"),
    # Fields other work may implement: declared fields win over these entries.
    "guardrail": ((), "agent guardrails are not supported yet; set the task's guardrail"),
    "guardrail_max_retries": ((3,), "agent guardrails are not supported yet; set the task's guardrail"),
}

UNSUPPORTED: dict[str, dict[str, tuple[tuple[Any, ...], str]]] = {
    # field -> (the values that ask for nothing, when not None/False/0/empty; why it is not supported)
    "BaseAgent": {
        "apps": ((), _PLATFORM),
        "callbacks": ((), "use step_callback, or subscribe to events on crewgraph_event_bus"),
        "agent_executor": ((), _EXECUTOR),
        "tools_handler": ((), _EXECUTOR),
        "cache_handler": ((), _EXECUTOR),
        "crew": ((), _EXECUTOR),
        "i18n": ((), "prompt translations are not supported"),
        "knowledge_storage": ((), "custom knowledge storage is not supported"),
        "tools_results": ((), _RUN_STATE),
        "execution_context": ((), _CHECKPOINT_STATE),
        "checkpoint": ((), "a solo agent's kickoff is not checkpointed; checkpoint the Crew that runs it"),
        "checkpoint_kickoff_event_id": ((), _CHECKPOINT_STATE),
    },
    "Task": {
        "converter_cls": ((), "structured output goes through instructor; a converter class does not apply"),
        "allow_crewai_trigger_context": ((), _PLATFORM),
        "prompt_context": ((), _EXECUTOR),
        "i18n": ((), "prompt translations are not supported"),
        "output": ((), _RUN_STATE),
        "used_tools": ((0,), _RUN_STATE),
        "tools_errors": ((0,), _COUNTED),
        "delegations": ((0,), _COUNTED),
        "processed_by_agents": ((), _COUNTED),
        "retry_count": ((0,), _RUN_STATE),
        "start_time": ((), _COUNTED),
        "end_time": ((), _COUNTED),
        "checkpoint_original_description": ((), _CHECKPOINT_STATE),
        "checkpoint_original_expected_output": ((), _CHECKPOINT_STATE),
    },
    "Crew": {
        "chat_llm": ((), "crewgraph has no `crewai chat` conversational mode"),
        "share_crew": ((), "crewgraph sends no telemetry or crew data anywhere"),
        "prompt_file": ((), "prompt translation files are not supported"),
        "task_execution_output_json_files": ((), _RUN_STATE),
        "execution_logs": ((), _RUN_STATE),
        "token_usage": ((), _RUN_STATE),
        "config": ((), "build the crew from @CrewBase and its YAML files instead of a config dict"),
        "execution_context": ((), _CHECKPOINT_STATE),
        "checkpoint_inputs": ((), _CHECKPOINT_STATE),
        "checkpoint_train": ((), _CHECKPOINT_STATE),
        "checkpoint_kickoff_event_id": ((), _CHECKPOINT_STATE),
        "function_calling_llm": ((), "a crew-wide function_calling_llm is not supported yet; set it per agent"),
    },
}


UNSUPPORTED["Agent"] = {**UNSUPPORTED["BaseAgent"], **_AGENT_ONLY}


def _asks_for_nothing(value: Any, defaults: tuple[Any, ...]) -> bool:
    if value is None:
        return True
    if defaults:
        return any(value == d and type(value) is type(d) for d in defaults)
    return value is False or (isinstance(value, list | tuple | dict | set | str) and not value)


def reject_unsupported(data: Any, what: str, declared: Any) -> Any:
    """``data`` (a model's input dict) without CrewAI fields left at their default; raises
    ``ValueError`` naming the first unsupported field that is set. ``declared`` is the
    model's ``model_fields``: a field the model declares is never touched."""
    if not isinstance(data, dict):
        return data
    table = UNSUPPORTED[what]
    found = [k for k in data if k in table and k not in declared]
    if not found:
        return data
    data = dict(data)
    for name in found:
        defaults, why = table[name]
        if not _asks_for_nothing(data[name], defaults):
            raise ValueError(
                f"{what}.{name} is a CrewAI field crewgraph does not support ({why}); "
                f"remove it (see docs/porting.md)"
            )
        del data[name]
    return data
