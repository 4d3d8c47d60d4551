"""Small readings of an execution trace and of the things evaluated, shared by the metrics."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["output_text", "task_context", "tool_sample"]


def output_text(final_output: Any) -> str:
    """The text of a final output (a ``TaskOutput``/``CrewOutput``'s ``raw``, else ``str``)."""
    raw = getattr(final_output, "raw", None)
    return raw if isinstance(raw, str) else str(final_output if final_output is not None else "")


def task_context(task: Any, *, expected: bool = False) -> str:
    """The task's description (and expected output) for the judge; empty without a task."""
    if task is None:
        return ""
    text = f"Task description: {task.description}"
    if expected and getattr(task, "expected_output", None):
        text += f"\nExpected output: {task.expected_output}"
    return text


def tool_sample(number: int, use: dict[str, Any]) -> str:
    """One tool use of the trace as the judge reads it."""
    ok = use.get("success", True) and not use.get("error", False)
    try:
        args = json.dumps(use.get("args", {}), indent=2, default=str)
    except (TypeError, ValueError):
        args = str(use.get("args"))
    text = f"Tool use #{number} - {use.get('tool', 'Unknown tool')}:\n- Parameters: {args}\n- Success: {'Yes' if ok else 'No'}"
    if not ok:
        text += f"\n- Error type: {use.get('error_type') or 'unknown_error'}\n- Error: {use.get('result')}"
    return text
