"""What training (and an agent's skills) change in a crew's plan (CrewAI's training semantics, read at compile time).

- During ``Crew.train`` (the crew's ``_train`` flag): every task is reviewed by a person
  (``human_input``), agents do not delegate, and each agent's prompt carries the feedback
  it was given in the earlier iterations of the session (``training_data.pkl``).
- Otherwise: an agent whose role has an entry in ``trained_agents_data.pkl`` (working
  directory) gets that entry's suggestions appended to its task prompt.

Both are read when the plan is built, so the plan a run executes (and a checkpoint
fingerprints) already holds the instructions; nodes read no files.
"""

from __future__ import annotations

from typing import Any

from crewgraph._internal.training_files import (
    instructions_block,
    session_feedback,
    trained_suggestions,
)

__all__ = ["is_training", "skills_context", "trained_instructions"]


def is_training(crew: Any) -> bool:
    """Whether ``crew`` is being trained (``Crew.train`` sets CrewAI's ``_train`` flag).

    Read from pydantic's private-attribute dict when there is one: ``crew._train`` goes
    through ``BaseModel.__getattr__``, and the compiler asks three times per task."""
    private = getattr(crew, "__pydantic_private__", None)
    if isinstance(private, dict):
        return bool(private.get("_train", False))
    return bool(getattr(crew, "_train", False))


def trained_instructions(crew: Any, agent: Any) -> str:
    """The instructions appended to ``agent``'s task prompts in ``crew`` (or "")."""
    if is_training(crew):
        return instructions_block(session_feedback(str(agent.id)))
    return instructions_block(trained_suggestions(agent.role, getattr(crew, "trained_agents_file", None)))


def skills_context(agent: Any, crew: Any = None) -> str:
    """The text of ``agent``'s skills (``Agent(skills=[...])``, then the crew's ``skills``; a name
    both have is the agent's), loaded and activated now (or "")."""
    entries = [*(getattr(agent, "skills", None) or []), *(getattr(crew, "skills", None) or [])]
    if not entries:
        return ""
    from crewgraph.skills.loader import load_skills, skills_prompt

    return "\n\n" + skills_prompt(load_skills(entries, agent))
