"""``@CrewBase``: a class that declares a crew with decorated methods and YAML config.

::

    @CrewBase
    class ResearchCrew:
        agents_config = "config/agents.yaml"   # relative to this file
        tasks_config = "config/tasks.yaml"

        @agent
        def researcher(self) -> Agent:
            return Agent(config=self.agents_config["researcher"])

        @task
        def research_task(self) -> Task:
            return Task(config=self.tasks_config["research_task"])

        @crew
        def crew(self) -> Crew:
            return Crew(agents=self.agents, tasks=self.tasks)

After ``__init__`` the two config attributes are dicts of dicts whose names
(``agent: researcher``, ``tools: [search]``, ``context: [research_task]``...)
have been replaced by what the class's methods build. The class itself is
returned (not a subclass), so its name, module and pickling are unchanged.
"""

from __future__ import annotations

import copy
import functools
import inspect
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from crewgraph.errors import ConfigurationError
from crewgraph.project._members import marked_members
from crewgraph.project._resolve import build, missing_entry, resolve_agents, resolve_tasks
from crewgraph.project._yaml import ConfigFile, config_from_dict, load_config_file

__all__ = ["CrewBase", "build_members", "find_crew_method", "is_crew_class"]

T = TypeVar("T", bound=type)

_STATE_ATTR = "_crewgraph_project"
_DEPTH_ATTR = "_crewgraph_init_depth"
_DEFAULTS = {"agents_config": "config/agents.yaml", "tasks_config": "config/tasks.yaml"}


@dataclass
class ProjectState:
    """The loaded configs of one instance (kept for error messages)."""

    agents: ConfigFile
    tasks: ConfigFile


class ConfigMapping(dict[str, dict[str, Any]]):
    """``self.agents_config``: a plain dict, except that a missing entry names the file."""

    def __init__(self, config: ConfigFile) -> None:
        super().__init__(config.data)
        self.config = config

    def __missing__(self, key: str) -> dict[str, Any]:
        raise missing_entry(self.config, key)


def CrewBase(cls: T) -> T:
    """Make ``cls`` a crew project class: load its YAML config and resolve it on ``__init__``."""
    if not isinstance(cls, type):
        raise TypeError(f"@CrewBase decorates a class, not {type(cls).__name__}")
    original_init = cls.__init__  # type: ignore[misc]

    @functools.wraps(original_init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # A decorated subclass calling a decorated base's __init__ sets up once, at the end.
        depth = self.__dict__.get(_DEPTH_ATTR, 0)
        self.__dict__[_DEPTH_ATTR] = depth + 1
        try:
            original_init(self, *args, **kwargs)
        finally:
            self.__dict__[_DEPTH_ATTR] = depth
        if depth == 0:
            _setup(self)

    cls.__init__ = __init__  # type: ignore[misc]
    cls.is_crew_class = True  # type: ignore[attr-defined]
    cls.base_directory = _class_dir(cls)  # type: ignore[attr-defined]
    return cls


def is_crew_class(obj: Any) -> bool:
    """True for a class decorated with :func:`CrewBase`."""
    return isinstance(obj, type) and getattr(obj, "is_crew_class", False) is True


def find_crew_method(cls: type) -> str:
    """Name of the class's ``@crew`` method (a clear error if it has none or several)."""
    methods = list(marked_members(cls, "is_crew"))
    if len(methods) != 1:
        what = "no @crew method" if not methods else f"several @crew methods ({', '.join(methods)})"
        raise ConfigurationError(f"{cls.__name__} has {what}; a @CrewBase class needs exactly one")
    return methods[0]


def _class_dir(cls: type) -> Path:
    try:
        return Path(inspect.getfile(cls)).resolve().parent
    except (TypeError, OSError):  # defined in a REPL or exec(): paths are relative to cwd
        return Path.cwd()


def _load(owner: Any, attr: str, kind: str) -> ConfigFile:
    """The ``agents_config``/``tasks_config`` of the class that declares it (paths are
    relative to that class's file); the CrewAI default path when none does."""
    for klass in type(owner).__mro__:
        if attr in vars(klass):
            value, base = vars(klass)[attr], _class_dir(klass)
            break
    else:
        value, base = _DEFAULTS[attr], getattr(type(owner), "base_directory", Path.cwd())
    if value is None:
        return ConfigFile(kind=kind, path=None)
    if isinstance(value, dict):
        return config_from_dict(copy.deepcopy(value), kind)
    if not isinstance(value, str | Path):
        raise ConfigurationError(
            f"{type(owner).__name__}.{attr} must be a path to a YAML file or a dict, not {type(value).__name__}"
        )
    path = Path(value).expanduser()
    config = load_config_file(path if path.is_absolute() else base / path, kind)
    if not config.exists and value != _DEFAULTS[attr]:
        warnings.warn(
            f"{type(owner).__name__}.{attr}: {config.where()} not found; no {kind}s are configured",
            UserWarning,
            stacklevel=4,
        )
    return config


def _setup(owner: Any) -> None:
    agents = _load(owner, "agents_config", "agent")
    tasks = _load(owner, "tasks_config", "task")
    owner.__dict__[_STATE_ATTR] = ProjectState(agents=agents, tasks=tasks)
    owner.agents_config = ConfigMapping(agents)
    owner.tasks_config = ConfigMapping(tasks)
    resolve_agents(owner, agents)
    resolve_tasks(owner, tasks, agents)


def build_members(owner: Any) -> None:
    """Set ``owner.agents``/``owner.tasks`` from the ``@agent``/``@task`` methods, in
    definition order; agents used by tasks but not declared with ``@agent`` follow."""
    state: ProjectState | None = owner.__dict__.get(_STATE_ATTR)
    cls = type(owner)
    tasks = [build(owner, name, state.tasks if state else None) for name in marked_members(cls, "is_task")]
    agents: list[Any] = []
    seen: set[int] = set()
    declared = [build(owner, name, state.agents if state else None) for name in marked_members(cls, "is_agent")]
    for item in [*declared, *(getattr(t, "agent", None) for t in tasks)]:
        if item is not None and id(item) not in seen:
            seen.add(id(item))
            agents.append(item)
    owner.agents = agents
    owner.tasks = tasks
