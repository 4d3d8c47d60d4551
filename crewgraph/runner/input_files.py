"""``crew.kickoff(inputs, input_files={...})``: files for every task of one run.

As CrewAI documents, files given at kickoff reach every task and a task's own
``input_files`` of the same name win. A file's name also fills ``{name}`` in
the task texts (as "the file 'chart' (chart.png)") unless an input of that name
is given, so descriptions can point at the file. Every file is checked against
every agent before the run starts (missing, unsupported, binary for an agent
that is not multimodal): a ``CompileError`` names the task and the file.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from crewgraph.errors import CompileError
from crewgraph.graph.execution_graph import ExecutionGraph

__all__ = ["add_run_files", "file_inputs", "normalize_files"]


def normalize_files(files: Any) -> dict[str, str]:
    """The kickoff's files as ``{name: path or URL}`` (names and values checked as a Task's are)."""
    from crewgraph.spec._validators import check_input_files

    try:
        return check_input_files(files)
    except ValueError as exc:
        raise ValueError(f"kickoff(input_files=...): {exc}") from None


def file_inputs(inputs: dict[str, Any], files: dict[str, str]) -> dict[str, Any]:
    """``inputs`` plus a description of each file whose name no input already fills."""
    described = {name: f"the file {name!r} ({src.rsplit('/', 1)[-1]})" for name, src in files.items()}
    return {**described, **inputs}


def add_run_files(graph: ExecutionGraph, files: dict[str, str]) -> None:
    """Give every agent step of ``graph`` the run's files (its task's own files win)."""
    from crewgraph._internal.input_files import file_problem
    from crewgraph.nodes.agent_step import AgentStepNode

    problems: list[str] = []
    for node_id in list(graph.digraph.nodes):
        node = graph.digraph.nodes[node_id].get("node")
        if not isinstance(node, AgentStepNode):
            continue
        merged = {**files, **dict(node.input_files)}
        for name, source in files.items():
            problem = file_problem(name, source, multimodal=node.multimodal)
            if problem is not None:
                problems.append(f"task {node.task_name!r}: {problem}")
        graph.digraph.nodes[node_id]["node"] = dataclasses.replace(node, input_files=tuple(merged.items()))
    if problems:
        raise CompileError(problems[0] if len(problems) == 1 else "\n".join(problems), problems=problems)
