"""Declarative flows: a flow defined in YAML or JSON, compiled to the same graph as a class.

A definition names the flow, its initial state and its methods; each method
has one trigger (``start``, ``listen`` or ``router``) and one action::

    name: review_flow
    state: {topic: flows}
    crews: {writers: "my_project.crews:writing_crew"}     # crews and agents by name
    methods:
      draft:
        start: true
        crew: writers                # kickoff(inputs=state); the output is its raw text
      check:
        router: draft                # a router: its action's output is the label
        emit: [ok, redo]
        call: "my_project.steps:check"   # fn(flow, value) -> output
      publish:
        listen: ok                   # a method name or label; or {or: [...]}, {and: [...]}
        output: "published {topic}"  # a template over the state ({input}: the trigger's output)

Actions: ``call`` (``module:attr`` of ``fn(flow, value)``), ``crew`` (a crew by
name), ``agent`` + ``prompt`` (an agent by name, ``agent.kickoff(prompt)``),
``ask`` (a question for :meth:`Flow.ask`) or ``output`` (a template). Crews and
agents are named in the ``crews:``/``agents:`` tables (``module:attr``) or
given to :func:`load_flow`. Mistakes are ``ConfigurationError``s naming
``file:line`` and the method. :func:`flow_class` builds a Flow subclass with
the decorators a hand-written class would use, so it validates, compiles,
runs, persists and plots the same; :meth:`FlowDefinition.to_dict` gives the
definition back (``dump_flow`` writes it), and loading that again is equal.
"""

from __future__ import annotations

import importlib
import json
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from crewgraph._internal.yaml_limits import check_expansion, read_bounded
from crewgraph.errors import ConfigurationError

__all__ = ["FlowDefinition", "MethodDefinition", "dump_flow", "flow_class", "load_flow", "parse_flow"]

_ACTIONS = ("call", "crew", "agent", "ask", "output")
_TRIGGERS = ("start", "listen", "router")


class MethodDefinition(BaseModel):
    """One method: a trigger (start / listen / router) and an action."""

    model_config = ConfigDict(extra="forbid")

    start: bool | str | dict[str, Any] | None = None
    listen: str | dict[str, Any] | None = None
    router: str | dict[str, Any] | None = None
    emit: list[str] | None = None
    call: str | None = None
    crew: str | None = None
    agent: str | None = None
    prompt: str | None = None
    ask: str | None = None
    output: Any = None

    def trigger(self) -> str:
        given = [t for t in _TRIGGERS if getattr(self, t) not in (None, False)]
        if len(given) != 1:
            raise ValueError(f"needs exactly one of start/listen/router, got {given or 'none'}")
        return given[0]

    def action(self) -> str:
        given = [a for a in _ACTIONS if getattr(self, a) is not None]
        if len(given) != 1:
            raise ValueError(f"needs exactly one action of {', '.join(_ACTIONS)}, got {given or 'none'}")
        if given == ["agent"] and not self.prompt:
            raise ValueError("agent needs a prompt")
        if self.prompt is not None and given != ["agent"]:
            raise ValueError("prompt is only used with agent")
        return given[0]


class FlowDefinition(BaseModel):
    """A whole flow definition (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    state: dict[str, Any] = Field(default_factory=dict)
    crews: dict[str, str] = Field(default_factory=dict)
    agents: dict[str, str] = Field(default_factory=dict)
    methods: dict[str, MethodDefinition]
    max_method_calls: int | None = None
    persist: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The definition as plain data (what :func:`dump_flow` writes; defaults left out)."""
        data = self.model_dump(exclude_none=True, exclude_defaults=True)
        data["name"] = self.name
        data["methods"] = {k: m.model_dump(exclude_none=True) for k, m in self.methods.items()}
        return data


# ---------------------------------------------------------------------- parsing
class _Lines:
    """Line numbers of keys by path, from the composed YAML node tree."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines: dict[tuple[Any, ...], int] = {}

    def where(self, *keys: Any) -> str:
        for end in range(len(keys), -1, -1):
            line = self.lines.get(tuple(keys[:end]))
            if line is not None:
                return f"{self.path}:{line}"
        return self.path

    def record(self, node: Any, at: tuple[Any, ...]) -> None:
        import yaml

        self.lines.setdefault(at, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                k = key.value
                self.lines[(*at, k)] = key.start_mark.line + 1
                self.record(value, (*at, k))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self.record(item, (*at, i))


def _read(text: str, path: str) -> tuple[Any, _Lines]:
    import yaml

    lines = _Lines(path)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:  # aliases expanding past the limit are refused before construction
            check_expansion(node, path, "flow definition")
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        raise ConfigurationError(f"{where}: invalid YAML/JSON: {exc.problem or exc}") from None
    finally:
        loader.dispose()
    if node is not None:
        lines.record(node, ())
    return data, lines


def parse_flow(text: str, path: str = "<flow definition>") -> FlowDefinition:
    """Parse and check a YAML (or JSON) flow definition; errors name ``path:line``."""
    data, lines = _read(text, path)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: a flow definition is a mapping with name and methods")
    try:
        definition = FlowDefinition.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        what = ".".join(str(p) for p in loc) or "definition"
        raise ConfigurationError(f"{lines.where(*loc)}: {what}: {err['msg']}") from None
    for name, method in definition.methods.items():
        if not name.isidentifier():
            raise ConfigurationError(f"{lines.where('methods', name)}: method {name!r}: not a valid Python name")
        try:
            method.trigger()
            kind = method.action()
        except ValueError as exc:
            raise ConfigurationError(f"{lines.where('methods', name)}: method {name!r}: {exc}") from None
        if kind == "emit" or (method.emit is not None and method.trigger() != "router"):
            raise ConfigurationError(f"{lines.where('methods', name, 'emit')}: method {name!r}: emit is only for routers")
    definition.__dict__["_lines"] = lines
    return definition


def load_flow(
    path: str | Path,
    *,
    crews: dict[str, Any] | None = None,
    agents: dict[str, Any] | None = None,
) -> type[Any]:
    """Load a ``.yaml``/``.yml``/``.json`` flow definition and return its Flow class.
    ``crews``/``agents`` supply objects by name (else the definition's ``module:attr``)."""
    file = Path(path).expanduser()
    text = read_bounded(file, str(file), "the flow definition")  # at most MAX_CONFIG_BYTES
    data, _ = _read(text, str(file))
    from crewgraph.flow.declarative.loading import looks_like_crewai

    if looks_like_crewai(data):  # CrewAI's crewai.flow/v1 format (a ``schema`` key or ``do`` actions)
        if crews or agents:
            raise ConfigurationError(f"{file}: crews=/agents= are for crewgraph's shorthand format; a "
                                     "crewai.flow/v1 document defines its crews and agents inline")
        from crewgraph.flow.declarative.build import flow_class_from_definition
        from crewgraph.flow.declarative.loading import read_definition

        return flow_class_from_definition(read_definition(path=file))
    return flow_class(parse_flow(text, str(file)), crews=crews, agents=agents)


def dump_flow(definition: FlowDefinition | type[Any], path: str | Path) -> Path:
    """Write a definition (or a class built from one) as YAML (``.json``: JSON)."""
    if isinstance(definition, type):
        found = getattr(definition, "__flow_definition__", None)
        if found is None:
            raise TypeError(f"{definition.__name__} was not built from a flow definition")
        definition = found
    target = Path(path).expanduser()
    data = definition.to_dict()
    if target.suffix == ".json":
        target.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    else:
        import yaml

        target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return target


# ---------------------------------------------------------------------- building
def _condition(value: Any, where: str) -> Any:
    from crewgraph.flow.conditions import and_, or_

    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        op, items = next(iter(value.items()))
        if op in ("or", "and") and isinstance(items, list) and items:
            parts = [_condition(i, where) for i in items]
            return or_(*parts) if op == "or" else and_(*parts)
    raise ConfigurationError(f"{where}: a trigger is a method name or label, or {{or: [...]}} / {{and: [...]}}, "
                             f"got {value!r}")


def _import(ref: str, where: str) -> Any:
    module, _, attr = ref.partition(":")
    try:
        found: Any = importlib.import_module(module)
        for part in attr.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigurationError(f"{where}: cannot import {ref!r}: {exc}") from None
    return found


class _State(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(template: Any, flow: Any, value: Any) -> Any:
    if not isinstance(template, str):
        return template
    state = flow.state if isinstance(flow.state, dict) else flow.state.model_dump()
    raw = getattr(value, "raw", value)
    return string.Formatter().vformat(template, (), _State({**state, "input": raw}))


def _action(definition: FlowDefinition, name: str, method: MethodDefinition,
            crews: dict[str, Any], agents: dict[str, Any]) -> Callable[[Any, Any], Any]:
    lines: _Lines | None = definition.__dict__.get("_lines")
    where = lines.where("methods", name) if lines is not None else f"method {name!r}"
    kind = method.action()
    if kind == "call":
        fn = _import(str(method.call), where)
        if not callable(fn):
            raise ConfigurationError(f"{where}: method {name!r}: {method.call!r} is not callable")
        return lambda flow, value: fn(flow, value)
    if kind == "output":
        return lambda flow, value: _fill(method.output, flow, value)
    if kind == "ask":
        return lambda flow, value: flow.ask(_fill(method.ask, flow, value))
    ref = str(getattr(method, kind))
    given = crews if kind == "crew" else agents
    table = definition.crews if kind == "crew" else definition.agents
    if ref not in given and ref not in table and ":" not in ref:
        at = lines.where("methods", name, kind) if lines is not None else where
        raise ConfigurationError(
            f"{at}: method {name!r}: no {kind} named {ref!r} (declare it under {kind}s: as module:attr, "
            f"or pass {kind}s={{{ref!r}: ...}} to load_flow)"
        )
    obj = given[ref] if ref in given else _import(table.get(ref, ref), where)
    if kind == "crew":
        def run_crew(flow: Any, value: Any) -> Any:
            crew = obj() if callable(obj) and not hasattr(obj, "kickoff") else obj
            state = flow.state if isinstance(flow.state, dict) else flow.state.model_dump()
            return crew.kickoff(inputs={k: v for k, v in state.items() if k != "id"}).raw
        return run_crew

    def run_agent(flow: Any, value: Any) -> Any:
        prompt = _fill(method.prompt, flow, value)
        if hasattr(obj, "kickoff"):
            result = obj.kickoff(prompt)
        else:  # an agent without kickoff(): one task for it
            from crewgraph import Crew, Task

            task = Task(description=prompt, expected_output="The answer to the request.", agent=obj)
            result = Crew(agents=[obj], tasks=[task]).kickoff()
        return getattr(result, "raw", result)
    return run_agent


def flow_class(
    definition: FlowDefinition, *, crews: dict[str, Any] | None = None, agents: dict[str, Any] | None = None
) -> type[Any]:
    """The Flow subclass a definition describes (validated like any flow class)."""
    from crewgraph.flow.decorators import listen, router, start
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.persistence import persist

    lines: _Lines | None = definition.__dict__.get("_lines")
    body: dict[str, Any] = {"initial_state": dict(definition.state), "name": definition.name}
    if definition.max_method_calls is not None:
        body["max_method_calls"] = definition.max_method_calls
    for name, method in definition.methods.items():
        where = lines.where("methods", name) if lines is not None else f"method {name!r}"
        act = _action(definition, name, method, dict(crews or {}), dict(agents or {}))

        def fn(self: Any, value: Any = None, _act: Callable[[Any, Any], Any] = act) -> Any:
            return _act(self, value)

        fn.__name__ = fn.__qualname__ = name
        kind = method.trigger()
        if kind == "start":
            cond = None if method.start is True else _condition(method.start, where)
            fn = start(cond)(fn) if cond is not None else start()(fn)
        elif kind == "listen":
            fn = listen(_condition(method.listen, where))(fn)
        else:
            fn = router(_condition(method.router, where), emit=method.emit)(fn)
        body[name] = fn
    body["__flow_definition__"] = definition
    if definition.persist:
        body["input_provider"] = "persisted"  # an `ask` step of a persisted flow pauses the run
    bases = (Flow,)
    try:
        cls = type(_class_name(definition.name), bases, body)
    except ValueError as exc:  # FlowDefinitionError: a ValueError naming the methods
        where = lines.path if lines is not None else "flow definition"
        task = getattr(exc, "task", None)
        if task and lines is not None:
            where = lines.where("methods", task)
        raise ConfigurationError(f"{where}: {exc}") from None
    return persist()(cls) if definition.persist else cls


def _class_name(name: str) -> str:
    cleaned = "".join(part.capitalize() for part in "".join(c if c.isalnum() else " " for c in name).split())
    return cleaned if cleaned.isidentifier() else "DeclaredFlow"
