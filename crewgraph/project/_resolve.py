"""Turn names in agents.yaml/tasks.yaml into the objects the class's methods build.

YAML can only say ``agent: researcher`` or ``tools: [search]``; Agent and Task
want the objects. As in CrewAI, each name refers to a decorated method of the
``@CrewBase`` class (``@agent``, ``@task``, ``@tool``, ``@llm``, ``@callback``,
``@output_pydantic``...) and is replaced, in the config dict, by what that
method returns. Every wrong name fails here, at construction, with the file,
the line and the key, instead of deep inside a run.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from crewgraph.errors import ConfigurationError
from crewgraph.project._members import marked_members
from crewgraph.project._yaml import ConfigFile
from crewgraph.spec._unsupported import UNSUPPORTED
from crewgraph.spec.agent import Agent
from crewgraph.spec.task import Task

__all__ = ["ProjectConfigWarning", "build", "resolve_agents", "resolve_tasks"]


class ProjectConfigWarning(UserWarning):
    """A YAML key CrewAI knows but crewgraph does not use; it is ignored."""


# CrewAI fields crewgraph does not implement go through to the model, which drops them when
# left at CrewAI's default and rejects them, naming the field, when set (spec/_unsupported.py).
_AGENT_KEYS = (set(Agent.model_fields) - {"id"}) | {"cache_handler"} | set(UNSUPPORTED["Agent"])
_TASK_KEYS = (set(Task.model_fields) - {"id"}) | {"callbacks"} | set(UNSUPPORTED["Task"])
_TASK_RENAMED = {"max_retries": "guardrail_max_retries"}


def build(owner: Any, method: str, config: ConfigFile | None) -> Any:
    """Call ``owner.method()``; a validation error of the object it builds from a
    config entry of the same name is reported at that entry's line."""
    try:
        return getattr(owner, method)()
    except ValidationError as exc:
        if config is None or method not in config.data:
            raise
        err = exc.errors()[0]
        loc = [str(p) for p in err.get("loc", ())]
        key = loc[0] if loc and loc[0] in config.data[method] else None
        if key is None:  # a model-level error naming one field (an unsupported CrewAI field)
            key = next((k for k in config.data[method] if f".{k} is a CrewAI field" in err["msg"]), None)
        detail = ".".join(loc) + ": " if loc else ""
        extra = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise config.error(method, key, f"invalid {config.kind}: {detail}{err['msg']}{extra}") from None


def _check_keys(config: ConfigFile, name: str, entry: dict[str, Any], allowed: set[str]) -> None:
    for key in list(entry):
        if key in allowed:
            continue
        if config.kind == "task" and key in _TASK_RENAMED:
            entry.setdefault(_TASK_RENAMED[key], entry.pop(key))
            continue
        close = difflib.get_close_matches(key, sorted(allowed), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise config.error(name, key, f"unknown {config.kind} field{hint}")


def _known(names: dict[str, Any]) -> str:
    return ", ".join(names) if names else "none defined"


def _lookup(
    owner: Any, config: ConfigFile, name: str, key: str, ref: Any, members: dict[str, Any],
    decorator: str, index: int | None = None,
) -> str:
    """Check that ``ref`` names one of ``members``; returns the name."""
    if not isinstance(ref, str):
        raise config.error(name, key, f"expected the name of a @{decorator} method, got {ref!r}", index)
    if ref not in members:
        close = difflib.get_close_matches(ref, list(members), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise config.error(
            name, key,
            f"unknown {decorator} {ref!r}: {type(owner).__name__} has no @{decorator} method of "
            f"that name (known: {_known(members)}){hint}",
            index,
        )
    return ref


def _tools(owner: Any, config: ConfigFile, name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise config.error(name, "tools", "expected a list of @tool method names")
    members = marked_members(type(owner), "is_tool")
    out: list[Any] = []
    for i, ref in enumerate(value):
        if not isinstance(ref, str):
            out.append(ref)  # already a tool object (config given as a dict in code)
            continue
        out.append(getattr(owner, _lookup(owner, config, name, "tools", ref, members, "tool", i))())
    return out


def resolve_agents(owner: Any, config: ConfigFile) -> None:
    """Resolve ``llm``, ``function_calling_llm``, ``tools``, ``step_callback``, ``cache_handler``."""
    cls = type(owner)
    llms = marked_members(cls, "is_llm")
    callbacks = marked_members(cls, "is_callback")
    for name, entry in config.data.items():
        _check_keys(config, name, entry, _AGENT_KEYS)
        for key in ("llm", "function_calling_llm"):
            ref = entry.get(key)
            if isinstance(ref, str) and ref in llms:  # else a model name, as in CrewAI
                entry[key] = getattr(owner, ref)()
        if "tools" in entry:
            entry["tools"] = _tools(owner, config, name, entry["tools"])
        if isinstance(entry.get("step_callback"), str):
            ref = _lookup(owner, config, name, "step_callback", entry["step_callback"], callbacks, "callback")
            entry["step_callback"] = getattr(owner, ref)()
        if "cache_handler" in entry:
            ref = entry.pop("cache_handler")
            handlers = marked_members(cls, "is_cache_handler")
            getattr(owner, _lookup(owner, config, name, "cache_handler", ref, handlers, "cache_handler"))()


def _model(owner: Any, config: ConfigFile, name: str, key: str, ref: Any) -> Any:
    """A pydantic model named in ``output_pydantic``/``output_json``: a marked class
    attribute, else any model class attribute, else a model in the class's module."""
    if not isinstance(ref, str):
        return ref
    cls = type(owner)
    marked = marked_members(cls, "is_" + key)
    if ref in marked:
        return marked[ref]
    import sys

    for scope in (vars(cls), vars(sys.modules.get(cls.__module__, cls))):
        value = scope.get(ref)
        if isinstance(value, type) and issubclass(value, BaseModel):
            return value
    raise config.error(
        name, key,
        f"unknown model {ref!r}: not a @{key} class of {cls.__name__} nor a pydantic model "
        f"in {cls.__module__} (known: {_known(marked)})",
    )


def _callbacks(owner: Any, config: ConfigFile, name: str, key: str, value: Any) -> Callable[..., Any]:
    members = marked_members(type(owner), "is_callback")
    refs = value if isinstance(value, list) else [value]
    funcs = [
        getattr(owner, _lookup(owner, config, name, key, ref, members, "callback", i if isinstance(value, list) else None))()
        if isinstance(ref, str) else ref
        for i, ref in enumerate(refs)
    ]
    if len(funcs) == 1:
        return funcs[0]

    def run_all(output: Any) -> None:
        for func in funcs:
            func(output)

    return run_all


def resolve_tasks(owner: Any, config: ConfigFile, agents: ConfigFile) -> None:
    """Resolve ``agent``, ``tools``, ``output_*``, ``callback(s)``, then ``context``."""
    cls = type(owner)
    agent_members = marked_members(cls, "is_agent")
    task_members = marked_members(cls, "is_task")
    for name, entry in config.data.items():
        _check_keys(config, name, entry, _TASK_KEYS)
        if isinstance(entry.get("agent"), str):
            ref = _lookup(owner, config, name, "agent", entry["agent"], agent_members, "agent")
            entry["agent"] = build(owner, ref, agents)
        if "tools" in entry:
            entry["tools"] = _tools(owner, config, name, entry["tools"])
        for key in ("output_pydantic", "output_json", "response_model"):
            if key in entry:
                entry[key] = _model(owner, config, name, "output_pydantic" if key == "response_model" else key, entry[key])
        if "callbacks" in entry:
            entry["callback"] = _callbacks(owner, config, name, "callbacks", entry.pop("callbacks"))
        elif entry.get("callback") is not None:
            entry["callback"] = _callbacks(owner, config, name, "callback", entry["callback"])
        context = entry.get("context")
        if context is not None and not isinstance(context, list):
            raise config.error(name, "context", "expected a list of @task method names")
        for i, ref in enumerate(context or []):
            if isinstance(ref, str):
                _lookup(owner, config, name, "context", ref, task_members, "task", i)
    _resolve_contexts(owner, config)


def _resolve_contexts(owner: Any, config: ConfigFile) -> None:
    """Replace context names by the tasks, building referenced tasks' contexts first."""
    active: list[str] = []

    def resolve(name: str) -> None:
        entry = config.data.get(name)
        context = entry.get("context") if entry else None
        if not context or not any(isinstance(ref, str) for ref in context):
            return
        if name in active:
            cycle = " -> ".join([*active[active.index(name):], name])
            raise config.error(name, "context", f"context cycle: {cycle}")
        active.append(name)
        for ref in context:
            if isinstance(ref, str):
                resolve(ref)
        entry["context"] = [build(owner, ref, config) if isinstance(ref, str) else ref for ref in context]  # type: ignore[index]
        active.pop()

    for name in list(config.data):
        resolve(name)


def missing_entry(config: ConfigFile, name: str) -> ConfigurationError:
    """The error for ``self.agents_config["nme"]`` when there is no such entry."""
    if config.path is not None and not config.exists:
        return ConfigurationError(
            f"no {config.kind} {name!r}: {config.kind}s config {config.where()} does not exist"
        )
    close = difflib.get_close_matches(name, list(config.data), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ConfigurationError(
        f"no {config.kind} {name!r} in {config.where()} (known: {_known(config.data)}){hint}"
    )
