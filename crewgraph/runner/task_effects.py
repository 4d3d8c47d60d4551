"""What happens when a task of a run finishes: its output file, its event and its callbacks.

They happen as soon as the task's final node finishes, not after the whole
run, so a long crew writes each result as it goes; a restored task only gets
its output file re-written if the process died before writing it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from crewgraph.errors import ConfigurationError
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.crew_events import TaskCompletedEvent
from crewgraph.outputs import TaskOutput

if TYPE_CHECKING:
    from crewgraph.spec.crew import CrewSpec
    from crewgraph.spec.task import Task

__all__ = ["restore_output_file", "task_done", "write_output_file"]


def write_output_file(task: Task, output: TaskOutput, inputs: dict[str, Any]) -> None:
    """Write the task's output to its ``output_file``; an OS error becomes a ConfigurationError
    naming the task, the field and the path (a bare ``IsADirectoryError`` names none of them)."""
    path = task.output_path(inputs)
    if path is None:
        return
    if output.json_dict is not None:
        text = json.dumps(output.json_dict, indent=2, ensure_ascii=False)
    elif output.pydantic is not None:
        text = output.pydantic.model_dump_json(indent=2)
    else:
        text = output.raw
    try:
        if task.create_directory:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else ""
        hint = "" if task.create_directory else " (create_directory=False: the folder must exist)"
        raise ConfigurationError(
            f"task {output.name or task.display_name()!r}: cannot write its output_file "
            f"{str(path)!r}: {exc.strerror or exc}{where}{hint}"
        ) from exc


def restore_output_file(task: Task, output: TaskOutput, inputs: dict[str, Any]) -> None:
    """A restored task's callbacks and events fired in the run that computed it; only make sure
    its output file exists (the process may have died between the save and the write)."""
    path = task.output_path(inputs)
    if path is not None and not path.exists():
        write_output_file(task, output, inputs)


def task_done(crew: CrewSpec, task: Task, output: TaskOutput, inputs: dict[str, Any], run_id: str) -> None:
    """The task's output file, ``TaskCompletedEvent`` and ``task.output``; its callbacks run
    after this, off the scheduler's thread (``runner.task_callbacks``)."""
    write_output_file(task, output, inputs)
    if crewgraph_event_bus.has_handlers(TaskCompletedEvent):
        event = TaskCompletedEvent(task_name=output.name or task.display_name(), agent_role=output.agent,
                                   task_id=str(task.id), task=task, output=output)
        event.run_id = run_id
        crewgraph_event_bus.emit(crew, event)
    task.record_output(output)
    agent = task.agent or next((a for a in crew.agents if getattr(a, "role", None) == output.agent), None)
    if agent is not None and hasattr(agent, "_last_messages"):  # Agent.last_messages (a BaseAgent may lack it)
        agent._last_messages = output.messages  # read through a copy (Agent.last_messages)
