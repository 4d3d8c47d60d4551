"""A ``crewai.flow/v1`` definition compiled into a Flow class -- and a Flow class described as one.

:func:`flow_class_from_definition` writes the class a person would: one method
per entry, decorated with ``@start``/``@listen``/``@router`` (and
``@human_feedback``, ``@persist``), whose body runs the ``do`` action. So a
declared flow validates, compiles to the same graph, runs, persists, resumes
and plots exactly as a Python flow. :func:`definition_of_class` goes the other
way (``Flow.flow_definition()``): each method becomes a ``code`` action whose
``ref`` is the method itself, so the definition of a Python flow loads back
into a flow that runs the same methods.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from crewgraph.errors import ConfigurationError
from crewgraph.flow.flow_definition import (
    FlowConversationalDefinition,
    FlowDefinition,
    FlowMethodDefinition,
    FlowPersistenceDefinition,
)

__all__ = ["definition_of_class", "flow_class_from_definition"]

_OUTPUTS = "_declared_outputs"


def _where(definition: FlowDefinition, *keys: Any) -> str:
    found = definition.__dict__.get("_where")
    return found.at(keys) if found is not None else "flow definition"


def _condition(value: Any, where: str) -> Any:
    from crewgraph.flow.conditions import and_, or_

    if isinstance(value, str) and value:
        return value
    if isinstance(value, dict) and len(value) == 1:
        op, items = next(iter(value.items()))
        if op in ("or", "and") and isinstance(items, list) and items:
            parts = [_condition(i, where) for i in items]
            return or_(*parts) if op == "or" else and_(*parts)
    raise ConfigurationError(f"{where}: a condition is a method name or label, or {{or: [...]}} / {{and: [...]}}, "
                             f"got {value!r}")


def _store(definition: FlowPersistenceDefinition, where: str, root: Path | None) -> Any:
    from crewgraph.flow.persistence import FlowPersistence, SQLiteFlowPersistence
    from crewgraph.project.crew_definition import resolve_python_ref

    value = definition.persistence
    if value is None or isinstance(value, FlowPersistence):
        return value
    if isinstance(value, dict):
        extra = {k: v for k, v in value.items() if k not in ("ref", "persistence_type")}
        kind = value.get("ref") or value.get("persistence_type") or "SQLiteFlowPersistence"
        if kind in ("SQLiteFlowPersistence", "sqlite"):
            cls: Any = SQLiteFlowPersistence
        else:
            cls = resolve_python_ref(str(kind), f"{where}.persistence.ref")
        if not (isinstance(cls, type) and issubclass(cls, FlowPersistence)):
            raise ConfigurationError(f"{where}.persistence: {kind!r} is not a FlowPersistence class")
        if "db_path" in extra and root is not None and not Path(str(extra["db_path"])).is_absolute():
            extra["db_path"] = str(root / str(extra["db_path"]))
        return cls(**extra)
    raise ConfigurationError(f"{where}.persistence: a store is {{ref: module:Class, ...its fields}}, got {value!r}")


def _state(definition: FlowDefinition, where: str) -> Any:
    state = definition.state
    if state is None:
        return None
    default = dict(state.default or {})
    if state.type in ("dict", "unknown"):
        return default
    from pydantic import BaseModel

    if state.type == "pydantic" and state.ref:
        from crewgraph.project.crew_definition import resolve_python_ref

        try:
            model = resolve_python_ref(state.ref, f"{where}.ref")
        except ValueError:
            model = None
            if state.json_schema is None:
                raise
        if model is not None:
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise ConfigurationError(f"{where}.ref: {state.ref!r} is not a pydantic model")
            return model(**default) if default else model
    from crewgraph.flow.declarative.json_state import model_from_schema

    return model_from_schema(definition.name, getattr(state, "json_schema", None) or {}, default, where)


def _method(name: str, method: FlowMethodDefinition, definition: FlowDefinition, root: Path | None) -> Any:
    from crewgraph.flow.declarative.actions import build_action
    from crewgraph.flow.decorators import listen, router, start

    where = _where(definition, "methods", name)
    try:
        act = build_action(method.do, f"methods.{name}.do", root, definition.name)
    except (ValueError, ImportError) as exc:
        raise ConfigurationError(f"{_where(definition, 'methods', name, 'do')}: {exc}") from None
    is_router = method.router and method.human_feedback is None

    def fn(self: Any, value: Any = None) -> Any:
        from crewgraph.flow.declarative.json_state import missing_required

        missing = missing_required(self.state)
        if missing:
            raise ValueError(f"flow {definition.name!r}: state {', '.join(missing)} required by the state schema "
                             "but not given (pass them as kickoff inputs or state defaults)")
        result = act(self, value, None)
        outputs = self.__dict__.setdefault(_OUTPUTS, {})
        outputs[name] = result
        if is_router:  # the label: a bare string (an agent's or crew's text, trimmed)
            raw = getattr(result, "raw", result)
            return None if raw is None else str(raw).strip()
        return result

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = method.description
    if method.emit is not None and not method.router:
        raise ConfigurationError(f"{_where(definition, 'methods', name, 'emit')}: methods.{name}.emit: "
                                 "emit is only for routers (add router: true)")
    decorated: Any = fn
    if method.human_feedback is not None:
        decorated = _feedback(method, decorated, _where(definition, "methods", name, "human_feedback"))
    if method.listen is not None:
        cond = _condition(method.listen, _where(definition, "methods", name, "listen"))
        decorated = router(cond, emit=method.emit)(decorated) if is_router else listen(cond)(decorated)
    elif is_router and not method.start:
        raise ConfigurationError(f"{where}: methods.{name}: a router needs start: true or a listen condition")
    elif is_router:
        decorated = router(emit=method.emit)(decorated)
    if method.start:
        if method.start is True:
            decorated = start()(decorated)
        else:
            decorated = start(_condition(method.start, _where(definition, "methods", name, "start")))(decorated)
    elif method.listen is None:
        raise ConfigurationError(f"{where}: methods.{name}: needs a trigger (start: true, or listen: ...)")
    if method.persist is not None and method.persist.enabled:
        from crewgraph.flow.persistence import persist

        store = _store(method.persist, f"methods.{name}.persist", root)
        decorated = persist(store, verbose=method.persist.verbose)(decorated)
    return decorated


def _feedback(method: FlowMethodDefinition, fn: Any, where: str) -> Any:
    from crewgraph.flow.human_feedback import human_feedback

    spec = method.human_feedback
    assert spec is not None
    kwargs: dict[str, Any] = {"message": spec.message}
    for key in ("emit", "llm", "default_outcome", "metadata", "provider"):
        if getattr(spec, key) is not None:
            kwargs[key] = getattr(spec, key)
    if spec.learn or spec.learn_strict or spec.learn_source != "hitl":
        kwargs.update(learn=spec.learn, learn_source=spec.learn_source, learn_strict=spec.learn_strict)
    try:
        return human_feedback(**kwargs)(fn)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{where}: {exc}") from None


def _config(definition: FlowDefinition, body: dict[str, Any]) -> None:
    config = definition.config
    for key, wrong in (("stream", True), ("suppress_flow_events", True)):
        if getattr(config, key) == wrong:
            raise ConfigurationError(f"{_where(definition, 'config', key)}: config.{key}: not supported by "
                                     "crewgraph's declarative flows yet")
    if config.memory is not None:
        raise ConfigurationError(f"{_where(definition, 'config', 'memory')}: config.memory: not supported; "
                                 "a flow's memory is a Memory object set in Python (Flow(memory=...))")
    if isinstance(config.checkpoint, dict):
        raise ConfigurationError(f"{_where(definition, 'config', 'checkpoint')}: config.checkpoint: only true/false "
                                 "(crewgraph's default store) is supported in a document")
    body["max_method_calls"] = config.max_method_calls
    if config.tracing is not None:
        body["tracing"] = config.tracing
    if config.checkpoint:
        body["checkpoint"] = True
    if config.input_provider is not None:
        ref = config.input_provider
        if ":" in ref:
            from crewgraph.project.crew_definition import resolve_python_ref

            try:
                found = resolve_python_ref(ref, "config.input_provider")
            except ValueError as exc:
                raise ConfigurationError(f"{_where(definition, 'config', 'input_provider')}: {exc}") from None
            body["input_provider"] = found() if isinstance(found, type) else found
        else:
            body["input_provider"] = ref


def flow_class_from_definition(definition: FlowDefinition, base: type | None = None) -> type[Any]:
    """The Flow subclass (of ``base``, default :class:`~crewgraph.flow.Flow`) a definition describes."""
    from crewgraph.flow.flow import Flow

    base = base or Flow
    root = definition.source_dir
    body: dict[str, Any] = {"name": definition.name, "__flow_definition__": definition,
                            "__module__": "crewgraph.flow.declared"}
    if definition.description:
        body["__doc__"] = definition.description
    state = _state(definition, _where(definition, "state"))
    if state is not None:
        body["initial_state"] = state
    _config(definition, body)
    conversational = definition.conversational
    if conversational is not None and conversational.enabled:
        from crewgraph.flow.conversational.config import (
            config_from_definition,
            conversational_state,
        )

        body["conversational"] = True
        body["initial_state"] = conversational_state(body.get("initial_state"))
        if getattr(base, "conversational_config", None) is None:
            body["conversational_config"] = config_from_definition(conversational, root)
    for name, method in definition.methods.items():
        body[name] = _method(name, method, definition, root)
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cls = type(_class_name(definition.name), (base,), body)
    except ValueError as exc:  # FlowDefinitionError and friends name the method
        task = getattr(exc, "task", None)
        where = _where(definition, "methods", task) if task else _where(definition)
        raise ConfigurationError(f"{where}: {exc}") from None
    for warning in caught:  # the compiler's warnings, told at the document rather than here
        place = _where(definition)
        file, _, line = place.rpartition(":")
        if file and line.isdigit():
            warnings.warn_explicit(warning.message, warning.category, file, int(line))
        else:
            warnings.warn(warning.message, warning.category, stacklevel=3)
    if definition.persist is not None and definition.persist.enabled:
        from crewgraph.flow.persistence import persist

        store = _store(definition.persist, "persist", root)
        cls = persist(store, verbose=definition.persist.verbose)(cls)
    return cls


def _class_name(name: str) -> str:
    cleaned = re.sub(r"\W", "", name.replace(" ", "_"))
    return cleaned if cleaned.isidentifier() else "DeclaredFlow"


# ---------------------------------------------------------------------- class -> definition
def _condition_data(condition: Any) -> Any:
    from crewgraph.flow.conditions import FlowCondition

    if isinstance(condition, FlowCondition):
        items = [_condition_data(c) for c in condition.conditions]
        return {"and" if condition.type == "AND" else "or": items}
    if isinstance(condition, str):
        return condition
    return condition.__name__


def definition_of_class(cls: type) -> FlowDefinition:
    """The ``crewai.flow/v1`` definition of a Python flow class (its methods as code refs)."""
    found = cls.__dict__.get("__flow_definition__")
    if isinstance(found, FlowDefinition):
        return found
    from crewgraph.flow._spec import flow_methods
    from crewgraph.flow.decorators import PERSIST, get_mark

    methods: dict[str, Any] = {}
    for name, fn in flow_methods(cls).items():
        mark = get_mark(fn)
        assert mark is not None
        entry: dict[str, Any] = {"do": {"call": "code", "ref": f"{cls.__module__}:{cls.__qualname__}.{name}"}}
        if fn.__doc__:
            entry["description"] = fn.__doc__.strip()
        condition = mark.conditions[0] if mark.conditions else None
        if mark.start:
            entry["start"] = True if condition is None else _condition_data(condition)
        elif condition is not None:
            entry["listen"] = _condition_data(condition)
        feedback = getattr(fn, "__crewgraph_feedback__", None)
        if mark.router:
            entry["router"] = True
            if mark.labels is not None:
                entry["emit"] = list(mark.labels)
        if feedback is not None:
            entry["router"] = True
            entry["emit"] = list(feedback)
        marker = getattr(fn, PERSIST, None)
        if marker is not None:
            entry["persist"] = {"enabled": True, "verbose": bool(marker[1]), "persistence": marker[0]}
        methods[name] = entry
    data: dict[str, Any] = {"name": getattr(cls, "name", None) or cls.__name__, "methods": methods}
    if cls.__doc__ and cls.__doc__ is not getattr(cls.__mro__[1], "__doc__", None):
        data["description"] = cls.__doc__.strip()
    data["state"] = _state_data(cls)
    config: dict[str, Any] = {}
    limit = getattr(cls, "max_method_calls", 100)
    config["max_method_calls"] = limit if limit is not None else 100
    if getattr(cls, "tracing", None) is not None:
        config["tracing"] = cls.tracing  # type: ignore[attr-defined]
    if getattr(cls, "checkpoint", False) is True:
        config["checkpoint"] = True
    data["config"] = config
    marker = getattr(cls, PERSIST, None)
    if marker is not None:
        data["persist"] = {"enabled": True, "verbose": bool(marker[1]), "persistence": marker[0]}
    if getattr(cls, "conversational", False):
        data["conversational"] = FlowConversationalDefinition().model_dump()
    definition = FlowDefinition.model_validate(data)
    return definition


def _state_data(cls: type) -> dict[str, Any]:
    from pydantic import BaseModel

    from crewgraph.flow.state import state_type_from_bases

    template = getattr(cls, "initial_state", None)
    if template is None:
        template = state_type_from_bases(cls)
    if isinstance(template, dict):
        return {"type": "dict", "default": dict(template)}
    model = type(template) if isinstance(template, BaseModel) else template
    if isinstance(model, type) and issubclass(model, BaseModel):
        out: dict[str, Any] = {"type": "pydantic", "ref": f"{model.__module__}:{model.__qualname__}",
                               "json_schema": model.model_json_schema()}
        if isinstance(template, BaseModel):
            out["default"] = template.model_dump(mode="json", exclude={"id"})
        return out
    return {"type": "dict"}
