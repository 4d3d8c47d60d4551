"""``crew.reset_memories(...)`` and ``crewgraph reset-memories``: what each command type resets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["COMMAND_TYPES", "default_knowledge_root", "reset_crew", "reset_store_directory"]

COMMAND_TYPES = ("memory", "knowledge", "agent_knowledge", "all")


def default_knowledge_root() -> Path:
    """``$CREWGRAPH_STORAGE_DIR/knowledge`` or ``./.crewgraph/knowledge``: one store per collection."""
    from crewgraph.memory.storage.factory import default_storage_path

    return default_storage_path().parent / "knowledge"


def reset_crew(crew: Any, command_type: str) -> None:
    """Reset the parts ``command_type`` names; an error when the crew has none of them."""
    if command_type not in COMMAND_TYPES:
        raise ValueError(f"unknown command_type {command_type!r}; use one of {', '.join(COMMAND_TYPES)}")
    from crewgraph.knowledge.owners import agent_knowledge, crew_knowledge

    targets: list[Any] = []
    if command_type in ("memory", "all"):
        memory = crew.get_memory()
        if memory is not None:
            targets.append(memory)
        elif command_type == "memory":
            raise ValueError("this crew has no memory to reset (set memory=True or pass a Memory)")
    if command_type in ("knowledge", "all"):
        knowledge = crew_knowledge(crew)
        if knowledge is not None:
            targets.append(knowledge)
        elif command_type == "knowledge":
            raise ValueError("this crew has no knowledge to reset (it sets no knowledge_sources)")
    if command_type in ("agent_knowledge", "all"):
        found = [k for a in crew.agents if (k := agent_knowledge(a, crew)) is not None]
        if not found and command_type == "agent_knowledge":
            raise ValueError("no agent of this crew has knowledge to reset (none sets knowledge_sources)")
        targets.extend(found)
    if not targets:
        raise ValueError("this crew has no memory and no knowledge to reset")
    for target in targets:
        target.reset()


def reset_store_directory(*, crew: bool, agents: bool, root: Path | None = None) -> list[str]:
    """Delete embedded knowledge stores under ``root`` (default: the default root): the crews'
    collections (``crew``, ``crew_*``) and/or the agents' (named after roles). Returns their names."""
    import shutil

    base = root if root is not None else default_knowledge_root()
    if not base.is_dir():
        return []
    removed = []
    for entry in sorted(base.iterdir()):
        if not entry.is_dir():
            continue
        is_crew = entry.name == "crew" or entry.name.startswith("crew_")
        if (is_crew and crew) or (not is_crew and agents):
            shutil.rmtree(entry)
            removed.append(entry.name)
    return removed
