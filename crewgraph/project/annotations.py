"""The decorators of a ``@CrewBase`` class: ``@agent``, ``@task``, ``@crew`` and helpers.

They only *mark* methods (an ``is_agent``-style attribute the class scan looks
for) and memoize them per instance, so ``self.researcher()`` called from three
tasks returns one Agent: a crew whose tasks held three different agents with
the same role would compile three workers where the user wrote one. ``@crew``
also gathers ``self.agents``/``self.tasks`` before the user's method runs and
attaches the ``@before_kickoff``/``@after_kickoff`` hooks to the Crew it returns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from crewgraph.project._members import marked_members

__all__ = [
    "after_kickoff",
    "agent",
    "before_kickoff",
    "cache_handler",
    "callback",
    "crew",
    "llm",
    "memoize",
    "output_json",
    "output_pydantic",
    "task",
    "tool",
]

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=type)

_MEMO_ATTR = "_crewgraph_memo"


def memoize(meth: F) -> F:
    """Cache ``meth``'s result per instance (and per hashable arguments).

    The cache lives on the instance, so two instances of one crew class never
    share agents, and dropping the instance drops what it built.
    """

    @functools.wraps(meth)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        key = (meth.__qualname__, args, tuple(sorted(kwargs.items())))
        try:
            hash(key)
        except TypeError:  # unhashable arguments: nothing sensible to cache on
            return _resolved(meth(self, *args, **kwargs))
        cache: dict[Any, Any] = self.__dict__.setdefault(_MEMO_ATTR, {})
        if key not in cache:
            cache[key] = _resolved(meth(self, *args, **kwargs))
        return cache[key]

    return cast(F, wrapper)


def _resolved(value: Any) -> Any:
    """An ``async def`` builder's result is awaited here (on a worker loop when one is running),
    so ``self.researcher()`` gives the Agent whether the method is sync or async, as in CrewAI."""
    import inspect

    if inspect.isawaitable(value):
        from crewgraph._internal.sync import run_sync

        async def wait() -> Any:
            return await value

        return run_sync(wait())
    return value


def _mark(func: Any, marker: str) -> Any:
    setattr(func, marker, True)
    return func


def agent(meth: F) -> F:
    """Mark a method returning an :class:`~crewgraph.Agent`; built once per instance."""
    return cast(F, _mark(memoize(meth), "is_agent"))


def task(meth: F) -> F:
    """Mark a method returning a :class:`~crewgraph.Task`; built once per instance.

    A task without a ``name`` is named after the method (as in CrewAI), which
    gives it a readable, stable node id and lets ``crewgraph replay -t`` find it.
    """

    @functools.wraps(meth)
    def named(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = _resolved(meth(self, *args, **kwargs))
        if getattr(result, "name", "unset") is None:
            result.name = meth.__name__
        return result

    return cast(F, _mark(memoize(named), "is_task"))


def crew(meth: F) -> F:
    """Mark the method that assembles the Crew.

    Before it runs, ``self.agents`` and ``self.tasks`` are filled with every
    ``@agent``/``@task`` result in definition order; the Crew it returns gets
    the class's ``@before_kickoff``/``@after_kickoff`` hooks, bound to ``self``,
    and, unless the method named it, the class's name (as CrewAI names it).
    """

    @functools.wraps(meth)
    def assemble(self: Any, *args: Any, **kwargs: Any) -> Any:
        from crewgraph.project.crew_base import build_members

        build_members(self)
        result = _resolved(meth(self, *args, **kwargs))
        _name_after_class(self, result)
        _attach_hooks(self, result)
        _record_factory(self, result)
        return result

    return cast(F, _mark(memoize(assemble), "is_crew"))


def _name_after_class(instance: Any, result: Any) -> None:
    fields_set = getattr(result, "model_fields_set", None)
    if fields_set is not None and "name" not in fields_set and hasattr(result, "name"):
        result.name = type(instance).__name__


def _record_factory(instance: Any, result: Any) -> None:
    """Tell the crew how to rebuild it (``module:Class``), so its checkpointed runs can be
    resumed with ``Crew.from_checkpoint(config)`` alone, as in CrewAI: checkpoints hold
    outputs, not code, and a @CrewBase class is exactly the code that builds this crew.
    Only for a class importable by that name whose ``__init__`` takes no arguments."""
    import inspect

    cls = type(instance)
    if getattr(result, "_factory_ref", "unsupported") is not None or "<locals>" in cls.__qualname__:
        return
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return
    result._factory_ref = f"{cls.__module__}:{cls.__qualname__}"


def _attach_hooks(instance: Any, result: Any) -> None:
    before = getattr(result, "before_kickoff_callbacks", None)
    after = getattr(result, "after_kickoff_callbacks", None)
    if before is None or after is None:
        return
    for name in marked_members(type(instance), "is_before_kickoff"):
        before.append(getattr(instance, name))
    for name in marked_members(type(instance), "is_after_kickoff"):
        after.append(getattr(instance, name))
    own = getattr(result, "_execution_hooks", None)
    if isinstance(own, dict):
        from crewgraph.hooks.decorators import crew_hooks

        for kind, hooks in crew_hooks(instance).items():
            own.setdefault(kind, []).extend(hooks)


def before_kickoff(meth: F) -> F:
    """Run ``meth(self, inputs)`` before the crew starts; a returned dict replaces the inputs."""
    return cast(F, _mark(meth, "is_before_kickoff"))


def after_kickoff(meth: F) -> F:
    """Run ``meth(self, output)`` after the crew finishes; a returned value replaces the output."""
    return cast(F, _mark(meth, "is_after_kickoff"))


def tool(meth: F) -> F:
    """Mark a method returning a tool instance; YAML ``tools: [name]`` refers to it."""
    return cast(F, _mark(memoize(meth), "is_tool"))


def llm(meth: F) -> F:
    """Mark a method returning an LLM; YAML ``llm: name`` refers to it (else it is a model name)."""
    return cast(F, _mark(memoize(meth), "is_llm"))


def callback(meth: F) -> F:
    """Mark a method returning a callable; YAML ``callbacks``/``step_callback`` refer to it."""
    return cast(F, _mark(memoize(meth), "is_callback"))


def cache_handler(meth: F) -> F:
    """Mark a method returning a cache handler; YAML ``cache_handler: name`` refers to it.

    crewgraph caches tool results itself (``cache=True``), so the handler is
    resolved (a wrong name still fails with its line) but not used.
    """
    return cast(F, _mark(memoize(meth), "is_cache_handler"))


def output_pydantic(cls: C) -> C:
    """Mark a pydantic model class (a class attribute) for YAML ``output_pydantic: Name``."""
    return cast(C, _mark(cls, "is_output_pydantic"))


def output_json(cls: C) -> C:
    """Mark a pydantic model class (a class attribute) for YAML ``output_json: Name``."""
    return cast(C, _mark(cls, "is_output_json"))
