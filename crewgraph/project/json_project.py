"""CrewAI's JSON-first projects: ``crew.jsonc`` plus ``agents/<name>.jsonc``, loaded into a Crew.

``crewai create crew NAME`` (CrewAI 1.15) writes no Python: each agent is a
file ``agents/<name>.jsonc`` (role, goal, backstory, llm, tools, and behaviour
fields at the top level or inside ``settings``), and ``crew.jsonc`` lists the
agents by file name, the tasks in order (``agent`` and ``context`` by name),
the crew's settings and ``inputs``, the defaults for ``{placeholders}``.
:func:`load_json_crew` reads such a folder. As in CrewAI, ``x.jsonc`` wins
over ``x.json``, and a ``context`` may only name earlier tasks.

Field names are checked against the same lists as ``agents.yaml``/``tasks.yaml``
(``crewgraph.project._resolve``): a typo is an "unknown field" error with a
suggestion; a CrewAI field crewgraph does not implement reaches the model,
which refuses it saying so (``crewgraph.spec._unsupported``). Every error names
the file and the line.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from crewgraph.errors import ConfigurationError
from crewgraph.project._json_refs import RefContext, is_python_ref
from crewgraph.project._jsonc import JsoncDocument, load_jsonc
from crewgraph.project._resolve import _AGENT_KEYS, _TASK_KEYS, _TASK_RENAMED
from crewgraph.project._yaml import display_path

__all__ = [
    "DEFINITION_NAMES",
    "JsonCrewProject",
    "crew_in_working_directory",
    "find_crew_definition",
    "load_json_crew",
]

DEFINITION_NAMES = ("crew.jsonc", "crew.json")
"""The crew definition files, in the order CrewAI looks for them (JSONC first)."""

_AGENT_EXTRA = {"settings", "type"}
_AGENT_TYPES = {"agent", "Agent", "crewai.Agent", "crewgraph.Agent"}
_TASK_EXTRA = {"type", "condition", "callbacks"}
_TASK_TYPES = {"task", "Task", "crewai.Task", "crewgraph.Task"}
_CONDITIONAL_TYPES = {"conditional", "conditional_task", "ConditionalTask"}
_CREW_RUNTIME = {"id", "usage_metrics", "checkpoint", "cassette", "input_provider"}
_LLM_FIELDS = ("llm", "function_calling_llm", "manager_llm", "planning_llm", "chat_llm")
_CALLABLE_FIELDS = ("step_callback", "task_callback", "callback", "condition")


@dataclass
class JsonCrewProject:
    """A loaded JSON-first project: the crew, the defaults of its inputs, where it came from."""

    crew: Any
    inputs: dict[str, Any] = field(default_factory=dict)
    path: Path = Path("crew.jsonc")

    @property
    def root(self) -> Path:
        return self.path.parent


def find_crew_definition(root: Path) -> Path | None:
    """``root/crew.jsonc``, else ``root/crew.json``, else None."""
    for name in DEFINITION_NAMES:
        if (root / name).is_file():
            return root / name
    return None


def load_json_crew(source: str | Path, *, ask_missing_inputs: bool = False,
                   agents_dir: str | Path | None = None) -> JsonCrewProject:
    """Load the JSON-first project at ``source`` (its folder or its crew.jsonc/crew.json);
    the agent files are in ``agents_dir`` (default: the ``agents`` folder beside it).

    With ``ask_missing_inputs`` (what ``crewgraph run`` passes), a kickoff whose
    inputs leave a ``{placeholder}`` unfilled asks for it on a terminal, and
    fails naming it (and where to set it) when there is none.
    """
    path = Path(source)
    if path.is_dir():
        found = find_crew_definition(path)
        if found is None:
            raise ConfigurationError(f"{display_path(path)}: no crew.jsonc or crew.json in this folder")
        path = found
    elif not path.is_file():
        raise ConfigurationError(f"no such crew definition: {display_path(path)}")
    return _Loader(path.resolve(), Path(agents_dir).resolve() if agents_dir is not None else None).load(ask_missing_inputs)


def crew_in_working_directory() -> Any:
    """The crew of the JSON-first project in the working directory (how a checkpointed
    ``crewgraph run`` of one is rebuilt to resume)."""
    return load_json_crew(Path.cwd()).crew


def _suggest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _object(doc: JsoncDocument, what: str) -> dict[str, Any]:
    if not isinstance(doc.data, dict):
        raise ConfigurationError(f"{doc.shown}: {what} must be a JSON object {{...}}, got {type(doc.data).__name__}")
    return dict(doc.data)


def _check_fields(
    refs: RefContext, data: dict[str, Any], allowed: set[str], keys: tuple[Any, ...], kind: str
) -> None:
    for key in list(data):
        if key in allowed:
            continue
        if kind == "task" and key in _TASK_RENAMED:
            data[_TASK_RENAMED[key]] = data.pop(key)
            continue
        raise refs.fail((*keys, key), key, f"unknown {kind} field{_suggest(key, sorted(allowed))}")


def _model_error(refs: RefContext, exc: ValidationError, fields: dict[str, tuple[Any, ...]], kind: str) -> ConfigurationError:
    """The first pydantic error, at the line of the field it is about."""
    err = exc.errors()[0]
    loc = [str(p) for p in err.get("loc", ())]
    name = loc[0] if loc and loc[0] in fields else None
    if name is None:  # a model-level error naming one field (an unsupported CrewAI field...)
        name = next((k for k in fields if f".{k} is a CrewAI field" in err["msg"] or f"'{k}'" in err["msg"]), None)
    keys = fields.get(name, ()) if name else ()
    detail = ".".join(loc) + ": " if loc else ""
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return refs.fail(keys, name, f"invalid {kind}: {detail}{err['msg']}{more}")


def build_agent_file(root: Path, name: str, file: Path) -> Any:
    """The Agent of the agent definition ``file`` of the project at ``root`` (``load_agent``)."""
    from crewgraph import Agent

    doc = load_jsonc(file, display_path(file), "agent definition")
    refs = RefContext(doc, root, f"agent {name!r}")
    data = _object(doc, "an agent definition")
    _check_fields(refs, data, _AGENT_KEYS | _AGENT_EXTRA, (), "agent")
    fields: dict[str, tuple[Any, ...]] = {k: (k,) for k in data}
    settings = data.pop("settings", None) or {}
    if not isinstance(settings, dict):
        raise refs.fail(("settings",), "settings", "expected an object of agent settings")
    _check_fields(refs, settings, _AGENT_KEYS, ("settings",), "agent")
    for key, value in settings.items():
        if key in data:
            raise refs.fail(("settings", key), key, "set both at the top level and in settings; keep one")
        data[key] = value
        fields[key] = ("settings", key)
    cls = Agent
    kind = data.pop("type", None)
    if is_python_ref(kind):
        cls = refs.python(kind, fields["type"], "type")
        if not (isinstance(cls, type) and issubclass(cls, Agent)):
            raise refs.fail(fields["type"], "type", f"{kind['python']!r} is not a subclass of Agent")
    elif kind is not None and kind not in _AGENT_TYPES:
        raise refs.fail(fields["type"], "type", f'unknown agent type {kind!r}: use "Agent" or {{"python": "module.MyAgent"}}')
    for key in list(data):
        data[key] = _value(refs, key, data[key], fields[key])
    try:
        return cls(**data)
    except ValidationError as exc:
        raise _model_error(refs, exc, fields, "agent") from None


def _value(refs: RefContext, key: str, value: Any, keys: tuple[Any, ...]) -> Any:
    """One field's value with its references resolved."""
    if key == "tools":
        return refs.tools(value, keys)
    if key in _LLM_FIELDS:
        return refs.llm(value, keys, key)
    if key in _CALLABLE_FIELDS and is_python_ref(value):
        return refs.callable_ref(value, keys, key)
    if key in ("output_json", "output_pydantic", "response_model"):
        return refs.model_ref(value, keys, key)
    return refs.resolve_all(value, keys, key)


class _Loader:
    def __init__(self, path: Path, agents_dir: Path | None = None) -> None:
        self.path = path
        self.root = path.parent
        self.agents_dir = agents_dir if agents_dir is not None else self.root / "agents"
        self.doc = load_jsonc(path, display_path(path), "crew definition")
        self.refs = RefContext(self.doc, self.root, "crew")
        self.agents: dict[str, Any] = {}

    # -- agents -------------------------------------------------------------------------
    def _agent_files(self) -> list[str]:
        if not self.agents_dir.is_dir():
            return []
        return sorted({p.stem for p in self.agents_dir.iterdir() if p.suffix in (".jsonc", ".json")})

    def _agent(self, name: Any, keys: tuple[Any, ...], field_name: str) -> Any:
        if not isinstance(name, str) or not name.strip():
            raise self.refs.fail(keys, field_name, f"expected an agent name (a file agents/<name>.jsonc), got {name!r}")
        if name in self.agents:
            return self.agents[name]
        file = next((self.agents_dir / f"{name}{ext}" for ext in (".jsonc", ".json") if (self.agents_dir / f"{name}{ext}").is_file()), None)
        if file is None:
            where = display_path(self.agents_dir)
            raise self.refs.fail(
                keys, field_name,
                f"no agent {name!r}: neither {where}/{name}.jsonc nor {where}/{name}.json exists"
                f"{_suggest(name, self._agent_files())}",
            )
        self.agents[name] = build_agent_file(self.root, name, file)
        return self.agents[name]

    def _value(self, refs: RefContext, key: str, value: Any, keys: tuple[Any, ...]) -> Any:
        return _value(refs, key, value, keys)

    # -- tasks --------------------------------------------------------------------------
    def _tasks(self, crew: dict[str, Any], listed: list[str]) -> list[Any]:
        from crewgraph import Task
        from crewgraph.spec.conditional_task import ConditionalTask

        raw = crew.get("tasks")
        if not isinstance(raw, list) or not raw:
            raise self.refs.fail(("tasks",), "tasks", "expected a non-empty list of tasks")
        built: dict[str, Any] = {}
        out: list[Any] = []
        names = [t.get("name") if isinstance(t, dict) else None for t in raw]
        for i, entry in enumerate(raw):
            keys = ("tasks", i)
            label = entry.get("name") if isinstance(entry, dict) and isinstance(entry.get("name"), str) else f"#{i + 1}"
            refs = RefContext(self.doc, self.root, f"task {label!r}")
            if not isinstance(entry, dict):
                raise refs.fail(keys, None, f"expected a task object {{...}}, got {type(entry).__name__}")
            data = dict(entry)
            _check_fields(refs, data, _TASK_KEYS | _TASK_EXTRA, keys, "task")
            fields = {k: (*keys, k) for k in data}
            for renamed, new in _TASK_RENAMED.items():
                if new in data and renamed in entry:
                    fields[new] = (*keys, renamed)
            name = data.get("name")
            if name is not None and (not isinstance(name, str) or not name):
                raise refs.fail(fields["name"], "name", f"expected a task name, got {name!r}")
            if name in built:
                raise refs.fail(fields["name"], "name", f"two tasks are named {name!r}; context refers to tasks by name")
            cls: type = Task
            kind = data.pop("type", None)
            if kind in _CONDITIONAL_TYPES:
                cls = ConditionalTask
            elif is_python_ref(kind):
                cls = refs.python(kind, fields["type"], "type")
                if not (isinstance(cls, type) and issubclass(cls, Task)):
                    raise refs.fail(fields["type"], "type", f"{kind['python']!r} is not a subclass of Task")
            elif kind is not None and kind not in _TASK_TYPES:
                raise refs.fail(fields["type"], "type", f'unknown task type {kind!r}: use "Task", "ConditionalTask" or {{"python": ...}}')
            if "condition" in data and not (isinstance(cls, type) and issubclass(cls, ConditionalTask)):
                raise refs.fail(fields["condition"], "condition", 'a condition needs "type": "ConditionalTask"')
            if "agent" in data and data["agent"] is not None:
                ref = data["agent"]
                if not isinstance(ref, str) or ref not in listed:
                    hint = _suggest(str(ref), listed)
                    extra = " (add it to the crew's \"agents\" list)" if isinstance(ref, str) and ref in self._agent_files() else ""
                    raise refs.fail(fields["agent"], "agent", f"unknown agent {ref!r}{hint}{extra}; the crew's agents: {', '.join(listed)}")
                data["agent"] = self.agents[ref]
            if "context" in data and data["context"] is not None:
                data["context"] = self._context(refs, data["context"], fields["context"], built, names, i)
            if "input_files" in data and isinstance(data["input_files"], dict):
                data["input_files"] = {
                    k: str(self.root / v) if isinstance(v, str) and not Path(v).is_absolute() and "://" not in v else v
                    for k, v in data["input_files"].items()
                }
            if "callbacks" in data:
                funcs = [refs.callable_ref(v, (*fields["callbacks"], j), "callbacks") for j, v in enumerate(data.pop("callbacks") or [])]
                if funcs:
                    data["callback"] = funcs[0] if len(funcs) == 1 else _chain(funcs)
            for key in [k for k in data if k not in ("agent", "context", "callback")]:
                if key == "guardrails" and isinstance(data[key], list):
                    data[key] = [
                        refs.callable_ref(g, (*fields[key], j), key) if is_python_ref(g) else g for j, g in enumerate(data[key])
                    ]
                elif key == "guardrail" and is_python_ref(data[key]):
                    data[key] = refs.callable_ref(data[key], fields[key], key)
                else:
                    data[key] = self._value(refs, key, data[key], fields[key])
            if "callback" in data and is_python_ref(data["callback"]):
                data["callback"] = refs.callable_ref(data["callback"], fields["callback"], "callback")
            try:
                task = cls(**data)
            except ValidationError as exc:
                raise _model_error(refs, exc, fields, "task") from None
            out.append(task)
            if isinstance(name, str):
                built[name] = task
        return out

    def _context(
        self, refs: RefContext, value: Any, keys: tuple[Any, ...], built: dict[str, Any], names: list[Any], index: int
    ) -> list[Any]:
        if not isinstance(value, list):
            raise refs.fail(keys, "context", "expected a list of task names")
        out = []
        for j, ref in enumerate(value):
            if ref in built:
                out.append(built[ref])
                continue
            if isinstance(ref, str) and ref in names:
                problem = "is this task itself" if names.index(ref) == index else "comes later in the list"
                raise refs.fail((*keys, j), "context", f"task {ref!r} {problem}; context may only name earlier tasks")
            known = [n for n in names[:index] if isinstance(n, str)]
            raise refs.fail(
                (*keys, j), "context",
                f"unknown task {ref!r}{_suggest(str(ref), known)}; earlier tasks: {', '.join(known) or 'none'}",
            )
        return out

    # -- crew ---------------------------------------------------------------------------
    def load(self, ask_missing_inputs: bool) -> JsonCrewProject:
        from crewgraph import Crew

        crew = _object(self.doc, "crew.jsonc")
        allowed = (set(Crew.model_fields) - _CREW_RUNTIME) | _crew_unsupported() | {"inputs"}
        _check_fields(self.refs, crew, allowed, (), "crew")
        listed = crew.get("agents")
        if not isinstance(listed, list) or not listed:
            raise self.refs.fail(("agents",), "agents", "expected a non-empty list of agent names (files in agents/)")
        for i, name in enumerate(listed):
            self._agent(name, ("agents", i), "agents")
        tasks = self._tasks(crew, [str(n) for n in listed])
        inputs = crew.pop("inputs", None) or {}
        if not isinstance(inputs, dict):
            raise self.refs.fail(("inputs",), "inputs", "expected an object of default inputs, e.g. {\"topic\": \"AI\"}")
        data: dict[str, Any] = {"agents": [self.agents[n] for n in listed], "tasks": tasks}
        fields: dict[str, tuple[Any, ...]] = {k: (k,) for k in crew}
        for key, value in crew.items():
            if key in ("agents", "tasks"):
                continue
            if key == "manager_agent" and isinstance(value, str):
                data[key] = self._agent(value, (key,), key)
            elif key in ("before_kickoff_callbacks", "after_kickoff_callbacks") and isinstance(value, list):
                data[key] = [self.refs.callable_ref(v, (key, j), key) for j, v in enumerate(value)]
            else:
                data[key] = self._value(self.refs, key, value, (key,))
        data.setdefault("name", self.root.name)
        try:
            built = Crew(**data)
        except ValidationError as exc:
            raise _model_error(self.refs, exc, fields, "crew") from None
        if ask_missing_inputs:
            built.before_kickoff_callbacks.append(AskMissingInputs(built, self.doc.shown))
        return JsonCrewProject(crew=built, inputs=dict(inputs), path=self.path)


def _crew_unsupported() -> set[str]:
    from crewgraph.spec._unsupported import UNSUPPORTED

    return set(UNSUPPORTED["Crew"])


def _ask_stderr(prompt: str) -> str:
    """``input()`` with the prompt on stderr (stdout holds the crew's answer)."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    return sys.stdin.readline()


def _chain(funcs: list[Any]) -> Any:
    def run_all(output: Any) -> None:
        for func in funcs:
            func(output)

    return run_all


class AskMissingInputs:
    """A before-kickoff step: ask for each ``{placeholder}`` the inputs leave unfilled.

    As ``crewai run`` does, on a terminal each missing value is asked for (through
    the crew's ``input_provider`` when the CLI set one, so its progress display
    pauses); without a terminal the kickoff fails naming them and where to set them.
    """

    def __init__(self, crew: Any, shown: str) -> None:
        self.crew = crew
        self.shown = shown

    def missing(self, inputs: dict[str, Any]) -> list[str]:
        from crewgraph._internal.interpolate import placeholder_names

        wanted: set[str] = set()
        for task in self.crew.tasks:
            texts = [task.description, task.expected_output, task.output_file or ""]
            agent = task.agent
            if agent is not None:
                texts += [agent.role, agent.goal, agent.backstory]
            names = set().union(*(placeholder_names(t) for t in texts))
            wanted |= names - set(task.input_files)
        return sorted(wanted - set(inputs))

    def __call__(self, inputs: dict[str, Any]) -> dict[str, Any]:
        missing = self.missing(inputs)
        if not missing:
            return inputs
        if not (sys.stdin is not None and sys.stdin.isatty()):
            shown = ", ".join("{" + m + "}" for m in missing)
            flags = " ".join(f"-i {m}=VALUE" for m in missing)
            raise ConfigurationError(
                f"{self.shown}: no value for {shown}: add it to \"inputs\" in {Path(self.shown).name} "
                f"or pass {flags}"
            )
        ask = self.crew.input_provider if callable(self.crew.input_provider) else _ask_stderr
        out = dict(inputs)
        for name in missing:
            answer = str(ask(f"Enter a value for {{{name}}}: ") or "").strip()
            if not answer:
                raise ConfigurationError(f"{self.shown}: no value given for {{{name}}}")
            out[name] = answer
        return out
