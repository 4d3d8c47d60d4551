"""Checks a crew definition before any token is spent; every problem names its task.

The definition rules (``crewgraph.spec._crew_rules``) already ran when the
crew was built; they run again here for crews changed after that, together
with what only a compile can check: context tasks that are not in the crew,
and (given the kickoff inputs) ``{placeholders}`` no input fills.
"""

from __future__ import annotations

from typing import Any

from crewgraph._internal.crew_chat import CHAT_MESSAGES_KEY, conversation_history
from crewgraph._internal.interpolate import missing_placeholders
from crewgraph.errors import CompileError
from crewgraph.spec._crew_rules import crew_problems, raise_problems, task_label
from crewgraph.spec.task import Task

__all__ = ["task_label", "validate_crew"]


def validate_crew(crew: Any, inputs: dict[str, Any] | None) -> None:
    """Raise one CompileError listing every problem (the first one's task in ``.task``)."""
    tasks: list[Task] = list(crew.tasks)
    if not tasks:  # built without tasks (allowed, as in CrewAI): the definition error, at kickoff
        raise_problems(type(crew).__name__, crew_problems(crew), crew)
    problems: list[tuple[str | None, str]] = [(p.task, p.message) for p in crew_problems(crew)]
    index: set[Any] | None = None  # the crew's task ids, built for the first task with a context
    agent_texts: dict[int, list[str]] = {}  # each agent's texts that may hold a placeholder
    for i, task in enumerate(tasks):
        # The label only when a problem names the task: building it for each task was a
        # tenth of a 10,000-task compile.
        for ctx_task in task.context or []:
            if index is None:
                index = {t.id for t in tasks}
            if ctx_task.id not in index:
                label = task_label(task, i)
                problems.append(
                    (label, f"{label} lists {ctx_task.display_name()!r} in its context, but that task is not in the crew")
                )
            elif ctx_task.id == task.id:
                label = task_label(task, i)
                problems.append((label, f"{label} lists itself in its context"))
        file_problems = _file_problems(crew, task) if task.input_files else None
        if file_problems:
            label = task_label(task, i)
            problems.extend((label, f"{label}: {p}") for p in file_problems)
        if inputs is not None:  # a kickoff's compile: each task, each kickoff
            # only the texts with a "{" can name a placeholder; the agent's are the same for each of
            # its tasks (looked at once per agent, unless a task's files provide names)
            agent = task.agent
            texts = [t for t in (task.description, task.expected_output, task.output_file or "") if "{" in t]
            if agent is not None:
                own = agent_texts.get(id(agent))
                if own is None:
                    own = agent_texts[id(agent)] = [t for t in (agent.role, agent.goal, agent.backstory) if "{" in t]
                texts += own
            if not texts:
                continue
            provided = {**dict.fromkeys(task.input_files), **inputs} if task.input_files else inputs
            missing = sorted({m for text in texts for m in missing_placeholders(text, provided)})
            if missing:
                label = task_label(task, i)
                names = ", ".join("{" + m + "}" for m in missing)
                problems.append(
                    (label, f"{label} uses {names} but the kickoff inputs do not provide it{_did_you_mean(missing, inputs)}")
                )
    if inputs and inputs.get(CHAT_MESSAGES_KEY):
        try:
            conversation_history(inputs[CHAT_MESSAGES_KEY])
        except ValueError as exc:
            problems.append((None, str(exc)))
    problems.extend(_tool_problems(crew, tasks))
    if problems:
        _raise(problems)


def _did_you_mean(missing: list[str], inputs: dict[str, Any]) -> str:
    """A hint when an input's name is close to a missing placeholder (a typo in ``-i topik=AI``)."""
    import difflib

    pairs = []
    for name in missing:
        close = difflib.get_close_matches(name, [str(k) for k in inputs], n=1, cutoff=0.75)
        if close:
            pairs.append(f"{close[0]!r} for {{{name}}}")
    return f" (did you mean {', '.join(pairs)}?)" if pairs else ""


def _file_problems(crew: Any, task: Task) -> list[str]:
    """What is wrong with the task's ``input_files`` (missing, unsupported, or binary for an
    agent that is not multimodal)."""
    if not task.input_files:
        return []
    from crewgraph._internal.input_files import file_problem

    agent = task.agent if task.agent is not None else getattr(crew, "manager_agent", None)
    multimodal = bool(getattr(agent, "multimodal", False))
    found = (file_problem(name, source, multimodal=multimodal) for name, source in task.input_files.items())
    return [p for p in found if p]


def _tool_problems(crew: Any, tasks: list[Task]) -> list[tuple[str | None, str]]:
    """Each tool's missing optional packages (``extra_problems()``) and its own
    ``config_problems()`` (a missing API key...), reported once per tool."""
    found: list[tuple[str | None, str]] = []
    seen: set[int] = set()
    owners: list[tuple[Task | None, int | str, list[Any]]] = []  # (task, position) or (None, agent label)
    for i, task in enumerate(tasks):
        tools = task.tools or (task.agent.tools if task.agent is not None else None)
        if tools:
            owners.append((task, i, tools))
    for agent in getattr(crew, "agents", None) or []:
        owners.append((None, f"agent {agent.role!r}", getattr(agent, "tools", None) or []))
    for owner, where, tools in owners:
        for tool in tools:
            if id(tool) in seen:  # each tool is checked once (a crew's tools recur on each task)
                continue
            check = getattr(tool, "config_problems", None)
            extras = getattr(tool, "extra_problems", None)
            if not (callable(check) or callable(extras)):
                continue
            seen.add(id(tool))
            problems = [*(extras() if callable(extras) else ()), *(check() if callable(check) else ())]
            if not problems:
                continue
            # the label only for a problem: building one per task with tools was most of this pass
            label = task_label(owner, int(where)) if owner is not None else str(where)
            for problem in problems:
                found.append((label if owner is not None else None, f"{label}: tool {getattr(tool, 'name', tool)!r}: {problem}"))
    return found


def _raise(problems: list[tuple[str | None, str]]) -> None:
    first_task = next((t for t, _ in problems if t), None)
    msgs = [m for _, m in problems]
    if len(msgs) == 1:
        raise CompileError(msgs[0], task=first_task, problems=msgs)
    raise CompileError(
        f"{len(msgs)} problems found:\n" + "\n".join(f"  - {m}" for m in msgs),
        task=first_task,
        problems=msgs,
    )
