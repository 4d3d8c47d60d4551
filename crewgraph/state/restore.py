"""Rebuilding an agent from one of CrewAI's checkpoint records (``Agent.from_checkpoint``).

Crews and flows resume from crewgraph's store (the record names their run); an
agent is rebuilt from its definition in the record: the agent entity of an
agent checkpoint, or the one agent of a crew's (a solo ``Agent.kickoff`` runs
as a one-agent crew). Its model is rebuilt from the recorded model name.
"""

from __future__ import annotations

from typing import Any, TypeVar

from crewgraph.state.runtime import RuntimeState

__all__ = ["agent_from_checkpoint"]

A = TypeVar("A")


def agent_from_checkpoint(cls: type[A], config: Any, *, fork: bool = False, branch: str | None = None) -> A:
    state = RuntimeState.from_checkpoint(config)
    records = [e for e in state.root if isinstance(e, dict)]
    agents = [e["agent"] for e in records if e.get("entity_type") == "agent" and isinstance(e.get("agent"), dict)]
    if not agents:
        for crew in (e for e in records if e.get("entity_type") == "crew"):
            agents.extend(a for a in crew.get("agent_records") or [] if isinstance(a, dict))
    if len(agents) != 1:
        found = "no agent" if not agents else f"{len(agents)} agents"
        raise ValueError(f"checkpoint {config.restore_from!s} records {found}; Agent.from_checkpoint needs "
                         "one (a crew's run resumes with Crew.from_checkpoint(config))")
    data = dict(agents[0])
    data.pop("checkpoint", None)
    bound = (config.forked(branch) if fork else config).continuing()
    agent: A = cls.model_validate({**data, "checkpoint": bound})  # type: ignore[attr-defined]
    return agent
