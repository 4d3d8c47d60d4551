"""The texts an agent step sends: system prompt from the agent, user prompt from the task."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["CONTEXT_SEPARATOR", "EMPTY_ANSWER_MESSAGE", "MAX_ITER_MESSAGE", "NO_TOOLS_MESSAGE", "entry_text", "format_context", "system_prompt", "task_prompt", "task_prompt_around"]

MAX_ITER_MESSAGE = (
    "You have used the maximum number of tool calls allowed for this task. "
    "Do not call any more tools: give your best final answer now, using what you already know."
)

EMPTY_ANSWER_MESSAGE = "Your reply was empty. Give your complete final answer to the task now."

NO_TOOLS_MESSAGE = (
    "No tools can be used now, so that tool call was not run. "
    "Reply with your complete final answer as plain text."
)


def system_prompt(role: str, goal: str, backstory: str, template: str | None = None) -> str:
    if template:
        return template.replace("{role}", role).replace("{goal}", goal).replace("{backstory}", backstory)
    text = f"You are {role}."
    if backstory:
        text += f" {backstory}"
    return text + f"\nYour personal goal is: {goal}"


def task_prompt(
    description: str,
    expected_output: str,
    *,
    context: str = "",
    memories: str = "",
    knowledge: str = "",
    plan: str = "",
    output_schema: dict[str, Any] | None = None,
    has_tools: bool = False,
) -> str:
    head, tail = task_prompt_around(description, expected_output, with_context=bool(context), memories=memories,
                                    knowledge=knowledge, plan=plan, output_schema=output_schema, has_tools=has_tools)
    return head + context + tail


def task_prompt_around(
    description: str,
    expected_output: str,
    *,
    with_context: bool,
    memories: str = "",
    knowledge: str = "",
    plan: str = "",
    output_schema: dict[str, Any] | None = None,
    has_tools: bool = False,
) -> tuple[str, str]:
    """``task_prompt`` as the text before and after its context (``head + context + tail``),
    so a prompt can hold its context as a ref to text the run shares (see ``_context``)."""
    parts = [f"Current Task: {description}"]
    parts.append(
        "This is the expected criteria for your final answer: "
        f"{expected_output}\nYou MUST return the actual complete content as the final answer, not a summary."
    )
    if output_schema is not None:
        parts.append(
            "Your final answer must be a single JSON object that matches this JSON schema, "
            "with no other text:\n" + json.dumps(output_schema, indent=2)
        )
    if plan:
        parts.append(f"Plan for this task:\n{plan}")
    head = ""
    if with_context:
        parts.append("This is the context you're working with:\n")
        head = "\n\n".join(parts)
        parts = []
    if memories:
        parts.append(f"Relevant memories:\n{memories}")
    if knowledge:
        parts.append(knowledge)
    if has_tools:
        parts.append("Use the tools available to you when they help; answer directly when you are done.")
    parts.append("Begin! This is VERY important to you, do your best work.")
    tail = "\n\n".join(parts)
    return (head, "\n\n" + tail) if with_context else ("", tail)


CONTEXT_SEPARATOR = "\n\n----------\n\n"


def entry_text(name: str, raw: str) -> str:
    """One output in a context of several, under its task's name (joined by ``CONTEXT_SEPARATOR``)."""
    return f"[{name}]\n{raw}"


def format_context(outputs: list[tuple[str, str]]) -> str:
    """Outputs of context tasks, each under its task's name (a single one as it is)."""
    if len(outputs) == 1:
        return outputs[0][1]
    return CONTEXT_SEPARATOR.join(entry_text(name, text) for name, text in outputs)
