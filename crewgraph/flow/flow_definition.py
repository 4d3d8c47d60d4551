"""CrewAI's declarative flow format, ``crewai.flow/v1``: the models of a flow document.

A document names the flow (``name``), optionally its ``state`` contract
(``type: dict | json_schema | pydantic | unknown`` with ``default`` values),
``config``, ``persist`` and ``conversational`` blocks, and its ``methods``:
each has a trigger (``start: true`` or a condition, ``listen:`` a method name,
a router label or ``{or: [...]}``/``{and: [...]}``; ``router: true`` + ``emit``)
and one action under ``do:``, chosen by ``call``: ``code`` (``ref`` to a Python
callable, keyword arguments from ``with``), ``tool``, ``crew`` (an inline
crew under ``with``, or ``from_declaration`` a crew.jsonc, with ``inputs``),
``agent`` (an inline agent and its ``input``), ``expression`` (CEL ``expr``),
``script`` (trusted inline Python, off unless enabled) or ``each`` (steps per
item of a list). Values under ``with``/``inputs`` are templates of
:mod:`crewgraph.flow.expressions`. :meth:`FlowDefinition.from_declaration`
reads a file or text; :meth:`crewgraph.flow.Flow.from_declaration` builds the
flow; errors name the file, line and key (:mod:`crewgraph.flow.declarative`).
Unknown keys are refused (CrewAI ignores them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

from crewgraph.flow.expressions import Expression, ExpressionData, ExpressionError
from crewgraph.project.crew_definition import (
    AgentDefinition,
    CrewDefinition,
    PythonReferenceDefinition,
)

__all__ = [
    "SCHEMA",
    "FlowActionDefinition",
    "FlowAgentActionDefinition",
    "FlowAtomicActionDefinition",
    "FlowCodeActionDefinition",
    "FlowConfigDefinition",
    "FlowConversationalDefinition",
    "FlowConversationalRouterDefinition",
    "FlowCrewActionDefinition",
    "FlowDefinition",
    "FlowDefinitionCondition",
    "FlowDictStateDefinition",
    "FlowEachActionDefinition",
    "FlowEachStepDefinition",
    "FlowExpressionActionDefinition",
    "FlowHumanFeedbackDefinition",
    "FlowJsonSchemaStateDefinition",
    "FlowMethodDefinition",
    "FlowPersistenceDefinition",
    "FlowPydanticStateDefinition",
    "FlowScriptActionDefinition",
    "FlowStateDefinition",
    "FlowToolActionDefinition",
    "FlowUnknownStateDefinition",
    "check_expressions",
]

SCHEMA = "crewai.flow/v1"
"""The one format version this module reads (the document's ``schema`` key)."""

FlowDefinitionCondition: TypeAlias = str | dict[str, Any]
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BASE_ROOTS = frozenset({"outputs", "state"})
_EACH_ROOTS = frozenset({"item", "outputs", "state"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


# ---------------------------------------------------------------------- state
class FlowDictStateDefinition(_Strict):
    type: Literal["dict"] = "dict"
    default: dict[str, Any] | None = None


class FlowPydanticStateDefinition(_Strict):
    type: Literal["pydantic"] = "pydantic"
    ref: str | None = None
    json_schema: dict[str, Any] | None = None
    default: dict[str, Any] | None = None


class FlowJsonSchemaStateDefinition(_Strict):
    type: Literal["json_schema"] = "json_schema"
    json_schema: dict[str, Any]
    default: dict[str, Any] | None = None


class FlowUnknownStateDefinition(_Strict):
    type: Literal["unknown"] = "unknown"
    ref: str | None = None
    default: dict[str, Any] | None = None


FlowStateDefinition: TypeAlias = Annotated[
    FlowDictStateDefinition | FlowPydanticStateDefinition | FlowJsonSchemaStateDefinition | FlowUnknownStateDefinition,
    Field(discriminator="type"),
]


# ---------------------------------------------------------------------- config
class FlowConfigDefinition(_Strict):
    """Flow-level settings (what a Flow class sets as class attributes)."""

    tracing: bool | None = None
    stream: bool = False
    memory: dict[str, Any] | None = None
    input_provider: str | None = None
    suppress_flow_events: bool = False
    max_method_calls: int = 100
    defer_trace_finalization: bool = False
    checkpoint: bool | dict[str, Any] | None = None


class FlowPersistenceDefinition(_Strict):
    """``enabled: true`` persists like ``@persist``; ``persistence`` picks the store
    (``{ref: module:Class}``, ``{db_path: ...}`` for SQLite, or a live store)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    enabled: bool = False
    verbose: bool = False
    persistence: Any = None


class FlowHumanFeedbackDefinition(_Strict):
    """``@human_feedback`` on the method: shown its output with ``message``."""

    message: str
    emit: list[str] | None = None
    llm: Any = None
    default_outcome: str | None = None
    metadata: dict[str, Any] | None = None
    provider: Any = None
    learn: bool = False
    learn_source: str = "hitl"
    learn_strict: bool = False


class FlowConversationalRouterDefinition(_Strict):
    default_intent: str | None = "converse"
    fallback_intent: str | None = "converse"
    intent_field: str = "intent"
    llm: Any = None
    prompt: str | None = None
    response_format: PythonReferenceDefinition | None = None
    route_descriptions: dict[str, str] | None = None
    routes: list[str] | None = None


class FlowConversationalDefinition(_Strict):
    """A conversational flow (``handle_turn``/``chat``): the built-in chat graph's settings."""

    enabled: bool = True
    system_prompt: str | None = None
    llm: Any = None
    router: FlowConversationalRouterDefinition | None = None
    answer_from_history_prompt: str | None = None
    answer_from_history_llm: Any = None
    default_intents: list[str] | None = None
    intent_llm: Any = None
    visible_agent_outputs: list[str] | Literal["all"] | None = None
    defer_trace_finalization: bool = True
    trace_scope: Literal["turn", "session"] | None = None
    builtin_routes: list[str] = Field(default_factory=lambda: ["converse", "end"])
    internal_routes: list[str] = Field(default_factory=lambda: ["answer_from_history"])


# ---------------------------------------------------------------------- actions
class FlowCodeActionDefinition(_Strict):
    call: Literal["code"] = "code"
    ref: str
    with_: dict[str, ExpressionData] | None = Field(default=None, alias="with")


class FlowToolActionDefinition(_Strict):
    call: Literal["tool"]
    ref: str
    with_: dict[str, ExpressionData] | None = Field(default=None, alias="with")


class FlowCrewActionDefinition(_Strict):
    call: Literal["crew"]
    with_: CrewDefinition | None = Field(default=None, alias="with")
    from_declaration: str | None = None
    inputs: dict[str, ExpressionData] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> FlowCrewActionDefinition:
        if (self.with_ is None) == (self.from_declaration is None):
            raise ValueError("a crew action needs exactly one of with (an inline crew) or from_declaration")
        return self


class FlowAgentActionDefinition(_Strict):
    call: Literal["agent"]
    with_: AgentDefinition = Field(alias="with")


class FlowExpressionActionDefinition(_Strict):
    call: Literal["expression"]
    expr: str


class FlowScriptActionDefinition(_Strict):
    call: Literal["script"]
    code: str
    language: Literal["python"] = "python"


def _call_of(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("call", "code"))
    return str(getattr(value, "call", "code"))


FlowAtomicActionDefinition: TypeAlias = Annotated[
    Annotated[FlowCodeActionDefinition, Tag("code")]
    | Annotated[FlowToolActionDefinition, Tag("tool")]
    | Annotated[FlowCrewActionDefinition, Tag("crew")]
    | Annotated[FlowAgentActionDefinition, Tag("agent")]
    | Annotated[FlowExpressionActionDefinition, Tag("expression")]
    | Annotated[FlowScriptActionDefinition, Tag("script")],
    Discriminator(_call_of),
]


class FlowEachStepDefinition(_Strict):
    name: str
    if_: str | None = Field(default=None, alias="if")
    action: FlowAtomicActionDefinition

    @model_validator(mode="after")
    def _check_name(self) -> FlowEachStepDefinition:
        if not _NAME.fullmatch(self.name):
            raise ValueError(f"each.do step name {self.name!r} must match {_NAME.pattern}")
        return self


class FlowEachActionDefinition(_Strict):
    call: Literal["each"]
    in_: str = Field(alias="in")
    do: list[FlowEachStepDefinition]

    @model_validator(mode="after")
    def _steps(self) -> FlowEachActionDefinition:
        if not self.do:
            raise ValueError("each.do must contain at least one step")
        names = [s.name for s in self.do]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise ValueError(f"each.do step names must be unique: {dup!r}")
        return self


FlowActionDefinition: TypeAlias = Annotated[
    Annotated[FlowCodeActionDefinition, Tag("code")]
    | Annotated[FlowToolActionDefinition, Tag("tool")]
    | Annotated[FlowCrewActionDefinition, Tag("crew")]
    | Annotated[FlowAgentActionDefinition, Tag("agent")]
    | Annotated[FlowExpressionActionDefinition, Tag("expression")]
    | Annotated[FlowScriptActionDefinition, Tag("script")]
    | Annotated[FlowEachActionDefinition, Tag("each")],
    Discriminator(_call_of),
]


# ---------------------------------------------------------------------- methods
class FlowMethodDefinition(_Strict):
    """One method: its trigger(s) and its ``do`` action."""

    description: str | None = None
    do: FlowActionDefinition
    start: bool | FlowDefinitionCondition | None = None
    listen: FlowDefinitionCondition | None = None
    router: bool = False
    emit: list[str] | None = None
    human_feedback: FlowHumanFeedbackDefinition | None = None
    persist: FlowPersistenceDefinition | None = None

    @model_validator(mode="after")
    def _feedback_routes(self) -> FlowMethodDefinition:
        if self.human_feedback is not None and self.human_feedback.emit:
            self.router = True  # as CrewAI: feedback outcomes make the method route
            self.emit = None
        return self

    @property
    def is_start(self) -> bool:
        return bool(self.start)


class FlowDefinition(BaseModel):
    """A whole ``crewai.flow/v1`` document."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, arbitrary_types_allowed=True)

    schema_: Literal["crewai.flow/v1"] = Field(default="crewai.flow/v1", alias="schema")
    name: str
    description: str | None = None
    state: FlowStateDefinition | None = None
    config: FlowConfigDefinition = Field(default_factory=FlowConfigDefinition)
    persist: FlowPersistenceDefinition | None = None
    conversational: FlowConversationalDefinition | None = None
    methods: dict[str, FlowMethodDefinition] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> FlowDefinition:
        for name, _method in self.methods.items():
            if not _NAME.fullmatch(name):
                raise ValueError(f"method name {name!r} must match {_NAME.pattern}")
        return self

    def model_post_init(self, context: Any, /) -> None:
        self.__dict__.setdefault("_source_path", None)

    @property
    def source_path(self) -> Path | None:
        """The file this definition was read from (None: from text or data)."""
        found = self.__dict__.get("_source_path")
        return Path(found) if found else None

    @property
    def source_dir(self) -> Path | None:
        """The folder relative references (``from_declaration``, refs) are read from."""
        path = self.source_path
        return path.parent if path is not None else None

    # -------------------------------------------------------------- (de)serialization
    def to_dict(self, *, exclude_none: bool = True) -> dict[str, Any]:
        """The definition as JSON/YAML-ready data (``schema`` included)."""
        data = self.model_dump(by_alias=True, exclude_none=exclude_none, mode="json", exclude={"persist"})
        if self.persist is not None:
            data["persist"] = _persist_data(self.persist, exclude_none)
        for name, method in self.methods.items():
            if method.persist is not None:
                data["methods"][name]["persist"] = _persist_data(method.persist, exclude_none)
        return data

    def to_json(self, *, indent: int | None = 2, exclude_none: bool = True) -> str:
        return json.dumps(self.to_dict(exclude_none=exclude_none), indent=indent)

    def to_yaml(self, *, exclude_none: bool = True) -> str:
        import yaml

        return str(yaml.safe_dump(self.to_dict(exclude_none=exclude_none), sort_keys=False, allow_unicode=True))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FlowDefinition:
        from crewgraph.flow.declarative.loading import parse_definition

        return parse_definition(data, "<flow definition>")

    @classmethod
    def from_json(cls, data: str) -> FlowDefinition:
        return cls.from_declaration(contents=data)

    @classmethod
    def from_yaml(cls, data: str) -> FlowDefinition:
        return cls.from_declaration(contents=data)

    @classmethod
    def from_declaration(
        cls, *, contents: FlowDefinition | str | dict[str, Any] | None = None, path: Path | str | None = None
    ) -> FlowDefinition:
        """Read a definition from ``path`` (a .yaml/.yml/.json file) or ``contents`` (YAML or
        JSON text, a dict, or a definition); errors name the file, line and key."""
        from crewgraph.flow.declarative.loading import read_definition

        return read_definition(contents=contents, path=path)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of the format."""
        return cls.model_json_schema(by_alias=True)

    @classmethod
    def skill(cls, *, skips: Any = (), examples_format: str = "yaml") -> str:
        raise NotImplementedError(
            "FlowDefinition.skill() (CrewAI's authoring prompt for coding assistants) is not provided by "
            "crewgraph; FlowDefinition.json_schema() gives the format"
        )


def _persist_data(definition: FlowPersistenceDefinition, exclude_none: bool) -> dict[str, Any]:
    data = definition.model_dump(mode="python", exclude_none=exclude_none)
    store = definition.persistence
    if store is not None and not isinstance(store, dict):
        target = type(store)
        data["persistence"] = {"ref": f"{target.__module__}:{target.__qualname__}"}
        db_path = getattr(store, "db_path", None)
        if db_path is not None:  # a PostgreSQL URL's password is never written out (PGPASSWORD)
            from crewgraph.checkpoint.location import without_password

            data["persistence"]["db_path"] = str(without_password(str(db_path)))
    return data


def check_expressions(definition: FlowDefinition) -> None:
    """Parse every CEL expression of the definition (``ExpressionError`` with ``keys``, the
    path of the value in the document, so a typo fails at load naming its line and key)."""
    for name, method in definition.methods.items():
        _check_cel(method.do, ("methods", name, "do"), _BASE_ROOTS)


def _fail(exc: ExpressionError, keys: tuple[Any, ...]) -> ExpressionError:
    exc.keys = keys  # type: ignore[attr-defined]
    return exc


def _validate(kind: str, value: Any, keys: tuple[Any, ...], roots: frozenset[str]) -> None:
    where = ".".join(str(k) for k in keys)
    try:
        if kind == "expr":
            Expression(value).validate_expression(allowed_roots=roots, source=where)
        else:
            Expression(value).validate_template(allowed_roots=roots, source=where)
    except ExpressionError as exc:
        raise _fail(exc, (*keys, *getattr(exc, "keys", ()))) from None


def _check_cel(action: Any, keys: tuple[Any, ...], roots: frozenset[str]) -> None:
    if isinstance(action, FlowExpressionActionDefinition):
        _validate("expr", action.expr, (*keys, "expr"), roots)
    elif isinstance(action, FlowCodeActionDefinition | FlowToolActionDefinition):
        if action.with_ is not None:
            _validate("template", action.with_, (*keys, "with"), roots)
    elif isinstance(action, FlowCrewActionDefinition):
        if action.with_ is not None:
            _validate("template", action.with_.inputs, (*keys, "with", "inputs"), roots)
        if action.inputs is not None:
            _validate("template", action.inputs, (*keys, "inputs"), roots)
    elif isinstance(action, FlowAgentActionDefinition):
        _validate("template", action.with_.input, (*keys, "with", "input"), roots)
    elif isinstance(action, FlowEachActionDefinition):
        _validate("expr", action.in_, (*keys, "in"), _BASE_ROOTS)
        for index, step in enumerate(action.do):
            if step.if_ is not None:
                _validate("expr", step.if_, (*keys, "do", index, "if"), _EACH_ROOTS)
            _check_cel(step.action, (*keys, "do", index, "action"), _EACH_ROOTS)
