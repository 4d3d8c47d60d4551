"""``--llm``: run on another model, or offline on the demo model (``--llm fake``).

Two layers: :func:`llm_scope` makes every model call of the command go to the
chosen model (crewgraph.llm.override: a script's own ``LLM(...)``, the crews a
flow builds, memory analysis...), and :func:`apply_llm` also writes it into a
crew's agents, so the plan and the run record name the model that answers.
The demo model (crewgraph.testing.demo_model) calls each tool it is offered
once, fills structured outputs and says it is the demo model.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from crewgraph.cli._errors import UserError

__all__ = ["LLM_ENV", "apply_llm", "demo_llm", "llm_scope"]

LLM_ENV = "CREWGRAPH_LLM"
"""crewgraph.llm.override.LLM_ENV (tests/cli/test_lazy_cli.py checks they agree), spelled here
so that ``--help`` and the commands that run no model never import crewgraph.llm."""


@contextlib.contextmanager
def llm_scope(spec: str | None) -> Iterator[None]:
    """Within the block, every model call in the process goes to ``spec`` ("fake" or a model name);
    without ``spec``, ``$CREWGRAPH_LLM`` does the same on its own (crewgraph.llm.override)."""
    from crewgraph.llm.override import overriding

    try:
        scope = overriding(spec.strip() if spec else None)
        scope.__enter__()
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        yield
    finally:
        scope.__exit__(None, None, None)


def demo_llm() -> Any:
    """The demo model (crewgraph.testing.demo_model): its replies say they are fake."""
    from crewgraph.testing.demo_model import demo_model

    return demo_model()


def _agents(crew: Any) -> list[Any]:
    agents = list(crew.agents)
    if crew.manager_agent is not None:
        agents.append(crew.manager_agent)
    return agents


def apply_llm(target: Any, spec: str | None) -> None:
    """Point every model reference of a crew at ``spec`` ("fake" or a model name), else at
    ``$CREWGRAPH_LLM``: the model :func:`llm_scope` sends every call to (the same instance),
    so the plan and the run record name it. Flows build their crews while they run; the
    scope reaches those."""
    from crewgraph.llm.override import build_override, model_override

    if not (spec or "").strip() and not os.environ.get(LLM_ENV, "").strip():
        return
    if target.kind != "crew":
        return
    llm: Any = model_override()
    if llm is None:  # called outside llm_scope
        try:
            llm = build_override(spec or os.environ.get(LLM_ENV, ""))
        except ValueError as exc:
            raise UserError(str(exc)) from None
    crew = target.obj
    crew.llm = llm
    if crew.manager_llm is not None:
        crew.manager_llm = llm
    if crew.planning_llm is not None:
        crew.planning_llm = llm
    for agent in _agents(crew):
        agent.llm = llm
        if agent.function_calling_llm is not None:
            agent.function_calling_llm = llm
    _memory_llm(crew, llm)


def _memory_llm(crew: Any, llm: Any) -> None:
    """The crew's memory analyses saves with its own model: point it at ``llm`` too, so
    ``--llm fake`` never reaches a real provider (the CLI sets it before the memory is used)."""
    if not crew.memory_enabled:
        return
    from crewgraph.memory import Memory

    memory = crew.get_memory()
    memory = getattr(memory, "memory", memory)  # a MemoryScope/MemorySlice wraps one
    if isinstance(memory, Memory):
        memory.llm = llm
