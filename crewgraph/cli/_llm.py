"""``--llm``: run a crew on another model, or offline on a demo FakeLLM (``--llm fake``).

The fake answers every request with a short placeholder text (or, when a
structured output is requested, an instance of the model filled with
placeholder values), so a scaffolded project can be demonstrated and smoke
tested without an API key.
"""

from __future__ import annotations

import enum
import os
import types
import typing
from typing import Any

from pydantic import BaseModel

from crewgraph.cli._errors import UserError

__all__ = ["LLM_ENV", "apply_llm", "demo_llm"]

LLM_ENV = "CREWGRAPH_LLM"


def demo_llm() -> Any:
    """A FakeLLM that answers anything (its replies say they are fake)."""
    from crewgraph.testing import FakeLLM

    return FakeLLM(default=_reply, model="fake")


def _reply(request: Any) -> Any:
    if request.response_model is not None:
        return _placeholder(request.response_model)
    last = next((m for m in reversed(request.messages) if m.get("role") == "user"), None)
    first_line = str((last or {}).get("content") or "").strip().splitlines()
    topic = first_line[0].strip().removeprefix("Current Task:").strip() if first_line else "the task"
    if len(topic) > 100:
        topic = topic[:97] + "..."
    return f"(fake answer from crewgraph --llm fake) {topic}"


def _value(annotation: Any, depth: int) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or origin is types.UnionType:
        options = [a for a in args if a is not type(None)]
        return _value(options[0], depth) if options else None
    if origin is typing.Literal:
        return args[0] if args else None
    if origin in (list, tuple, set, frozenset):
        return []
    if origin is dict:
        return {}
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return _placeholder(annotation, depth + 1) if depth < 4 else None
        if issubclass(annotation, enum.Enum):
            return next(iter(annotation)).value
        if issubclass(annotation, bool):
            return False
        if issubclass(annotation, int | float):
            return annotation(0)
        if issubclass(annotation, str):
            return "fake"
    return None


def _placeholder(model: type[BaseModel], depth: int = 0) -> Any:
    data = {
        name: _value(info.annotation, depth)
        for name, info in model.model_fields.items()
        if info.is_required()
    }
    try:
        return model.model_validate(data)
    except ValueError:
        return model.model_construct(**data)


def _agents(crew: Any) -> list[Any]:
    agents = list(crew.agents)
    if crew.manager_agent is not None:
        agents.append(crew.manager_agent)
    return agents


def apply_llm(target: Any, spec: str | None) -> None:
    """Point every model reference of a crew at ``spec`` ("fake" or a model name), else at
    ``$CREWGRAPH_LLM``.

    The variable is read here rather than as the option's envvar because the two differ
    for flows: ``--llm`` on a flow is a mistake worth an error, but a variable exported
    for one's crews must not make every flow refuse to run.
    """
    from_env = not spec
    if from_env:
        spec = os.environ.get(LLM_ENV, "")
    spec = (spec or "").strip()
    if not spec:
        return
    if target.kind != "crew":
        if from_env:
            return
        raise UserError(
            "--llm works on crews; a flow builds its crews while it runs, so set their llm in the flow"
        )
    crew = target.obj
    llm: Any = demo_llm() if spec.lower() == "fake" else spec
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
