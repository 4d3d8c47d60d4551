"""BaseTool: a pydantic model with a ``_run`` method the model can call.

A tool describes itself to the model (``to_spec``: name, description, JSON
Schema of its arguments, derived from ``_run``'s signature unless
``args_schema`` is given) and runs in two ways: directly from Python
(``run``/``arun``, returning the tool's own value) and as a ``tool`` node when
a model asks for it (``crewgraph.tools._invoke``: validation, caching, usage
limits, failure policy, events). ``_run`` may be sync or async either way.
"""

from __future__ import annotations

import inspect
import logging
import threading
import typing
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_serializer,
    field_validator,
    model_serializer,
)

from crewgraph.llm.types import ToolSpec
from crewgraph.tools._names import sanitize_tool_name
from crewgraph.tools._schema import schema_from_callable, spec_parameters
from crewgraph.tools._sync import resolve_sync
from crewgraph.tools.env_vars import EnvVar
from crewgraph.tools.tool_failure import ToolFailure, ToolFailurePolicy, ToolFailureReason

__all__ = ["BaseTool", "EnvVar"]

_log = logging.getLogger("crewgraph.tools")

_TOOL_TYPE_REGISTRY: dict[str, type[BaseTool]] = {}
"""Every BaseTool subclass by ``module.qualname``, so a serialized tool can be rebuilt."""

_SPEC_KEY = "__crewgraph_spec__"
"""Where :meth:`BaseTool.to_spec` keeps the spec it built, with the values it was built from."""

_USAGE_LOCK = threading.Lock()
"""Guards usage counters: parallel calls of one tool must not both take the last use."""


class _ArgsSchemaPlaceholder(BaseModel):
    """Marks "derive the args schema from ``_run``" (replaced in ``model_post_init``)."""


def _default_cache_function(_args: Any = None, _result: Any = None) -> bool:
    """Cache every successful result (CrewAI's default)."""
    return True


def _no_text_form(value: Any) -> bool:
    """True for values whose ``str()`` is only a type name and memory address (a generator, a
    function, a plain object): the model reading that would be handed garbage, silently."""
    if inspect.isgenerator(value) or inspect.isasyncgen(value) or inspect.isawaitable(value):
        return True
    if inspect.isroutine(value):
        return True
    cls = type(value)
    return cls.__str__ is object.__str__ and cls.__repr__ is object.__repr__


def _first_error(exc: ValueError) -> str:
    if isinstance(exc, ValidationError) and exc.errors():
        e = exc.errors()[0]
        return f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
    return str(exc)


def _is_async_callable(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - async callable objects
    )


def _may_have_arun(tool: BaseModel) -> bool:
    """Whether ``getattr(tool, "_arun", None)`` can find anything: on the class, in the instance's
    ``__dict__``, among its pydantic private attributes or its extra fields."""
    if hasattr(type(tool), "_arun") or "_arun" in tool.__dict__:
        return True
    return any("_arun" in found for found in (tool.__pydantic_private__, tool.__pydantic_extra__) if found)


def _call_with(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return fn(*args, **kwargs)


def _ref(obj: Any) -> str | None:
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        return None
    return f"{module}:{qualname}"


def _reject_pydantic_v1(tool: str, schema: Any) -> None:
    """A ``pydantic.v1`` args_schema gets one line saying what to use, not a traceback at the first call."""
    if not isinstance(schema, type) or issubclass(schema, BaseModel):
        return
    if any(str(getattr(base, "__module__", "")).startswith("pydantic.v1") for base in schema.__mro__):
        from crewgraph.errors import ConfigurationError

        raise ConfigurationError(
            f"{tool}.args_schema is {schema.__name__}, a pydantic.v1 model: tools take pydantic v2 models "
            f"(`from pydantic import BaseModel`, not `from pydantic.v1 import BaseModel`)"
        )


class BaseTool(BaseModel, ABC):
    """Subclass and implement ``_run`` (sync or ``async def``).

    Fields follow CrewAI: ``name``, ``description`` (tell the model how, when
    and why to use the tool), ``args_schema`` (built from ``_run`` if not
    given), ``result_schema`` (pydantic model of the result; inferred from
    ``_run``'s return annotation), ``cache_function(args, result) -> bool``
    (whether a result may be cached), ``result_as_answer`` (the result ends the
    agent's task), ``max_usage_count``/``current_usage_count`` and
    ``tool_failure_policy`` (most specific level of the failure policy chain).
    ``max_result_chars`` (crewgraph's) caps the text the model reads per call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = Field(description="The unique name of the tool")
    description: str = Field(description="Used to tell the model how/when/why to use the tool.")
    args_schema: type[BaseModel] = Field(default=_ArgsSchemaPlaceholder, validate_default=False)
    result_schema: type[BaseModel] | None = Field(default=None)
    cache_function: Callable[..., Any] = Field(default=_default_cache_function)
    result_as_answer: bool = Field(default=False)
    max_usage_count: int | None = Field(default=None, ge=0)
    max_result_chars: int | None = Field(
        default=None, ge=1, description="Most characters of a result the model reads (see tools._result_cap)"
    )
    current_usage_count: int = Field(default=0, ge=0)
    description_updated: bool = Field(
        default=False, description="CrewAI's flag that the description was rewritten for the prompt "
        "(crewgraph never rewrites it: formatted_description composes the prompt block on demand)"
    )
    resources: dict[str, float] | None = Field(
        default=None, description="What a call of this tool needs where it runs on Ray ({'GPU': 1}); unused locally"
    )
    tool_failure_policy: ToolFailurePolicy | None = Field(default=None)
    env_vars: list[EnvVar] = Field(
        default_factory=list, description="Environment variables the tool reads (CrewAI's EnvVar declarations)"
    )

    requires_extras: ClassVar[tuple[tuple[str, str], ...]] = ()
    """``(module, extra)`` pairs the tool's calls import: a missing one fails ``crew.compile()``
    naming the tool and ``pip install 'crewgraph[extra]'`` (see :meth:`extra_problems`)."""

    def extra_problems(self) -> list[str]:
        """One line per optional package the tool needs and the environment lacks."""
        from crewgraph._internal.extras import missing_extra

        found = (missing_extra(module, extra, type(self).__name__) for module, extra in self.requires_extras)
        return [problem for problem in found if problem]

    @field_validator("resources", mode="before")
    @classmethod
    def _check_resources(cls, value: Any) -> Any:
        from crewgraph._internal.resources import check_resources

        return None if value is None else check_resources("tool resources", value)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _TOOL_TYPE_REGISTRY[f"{cls.__module__}.{cls.__qualname__}"] = cls

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        field = cls.model_fields.get("args_schema")
        if field is not None:
            _reject_pydantic_v1(cls.__name__, field.default)

    @field_validator("args_schema", mode="before")
    @classmethod
    def _check_args_schema(cls, value: Any) -> Any:
        _reject_pydantic_v1(cls.__name__, value)
        return value

    def model_post_init(self, __context: Any) -> None:
        if self.args_schema is _ArgsSchemaPlaceholder:
            self.args_schema = schema_from_callable(self._signature_target(), self.name)
        if self.result_schema is None:
            self.result_schema = self._infer_result_schema()

    # subclass API -------------------------------------------------------
    @abstractmethod
    def _run(self, *args: Any, **kwargs: Any) -> Any:
        """The tool's logic; may be ``async def``. Return a value or a :class:`ToolFailure`."""

    def _signature_target(self) -> Callable[..., Any]:
        """The callable whose signature defines the arguments (``_run``, or a wrapped function)."""
        return self._run

    def format_output_for_agent(self, raw_result: object) -> str:
        """The text the model reads for ``raw_result``; override for Markdown or short text.

        Default: a :class:`ToolFailure` renders its message, pydantic results
        become JSON, a dict with a ``result_schema`` is validated into it and
        rendered as that model's JSON, UTF-8 bytes are decoded, anything else
        (dicts and lists included) ``str()``, as CrewAI renders tool results. A value with no text form (a generator, a function, an
        object without ``__str__``/``__repr__``) or binary bytes raises
        ``TypeError``, so the call is recorded as a failure instead of the model
        reading ``<generator object ... at 0x...>``.
        """
        if type(raw_result) is str:  # the usual result, and what every check below would give back
            return raw_result
        if isinstance(raw_result, ToolFailure):
            return raw_result.as_agent_message()
        if isinstance(raw_result, BaseModel):
            return raw_result.model_dump_json()
        if isinstance(raw_result, dict) and self.result_schema is not None:
            try:
                return self.result_schema.model_validate(raw_result).model_dump_json()
            except ValueError as exc:  # the raw value still reaches the model, said plainly
                message = (
                    f"tool {self.name!r}: its result does not match its result_schema "
                    f"{self.result_schema.__name__} ({_first_error(exc)}); the model reads the raw value"
                )
                warnings.warn(message, UserWarning, stacklevel=2)
                _log.warning(message)
        if isinstance(raw_result, dict | list | tuple):
            return str(raw_result)  # CrewAI's rendering: str() of the value, so {'a': 1}
        if isinstance(raw_result, bytes | bytearray):
            try:
                return bytes(raw_result).decode("utf-8")
            except UnicodeDecodeError:
                raise TypeError(
                    f"the tool returned {len(raw_result)} bytes of binary data, which the model cannot "
                    "read: return text, or override format_output_for_agent"
                ) from None
        if _no_text_form(raw_result):
            raise TypeError(
                f"the tool returned a {type(raw_result).__name__} object, which has no text form for "
                "the model: return a str, a pydantic model or a dict/list, or override "
                "format_output_for_agent"
            )
        return str(raw_result)

    def config_problems(self) -> list[str]:
        """What keeps this tool from working, found before a run spends a token.

        The crew compiler calls it for every tool a crew's tasks and agents can
        use and fails with all the problems at once (a hosted tool with no API
        key, an adapter whose library is not installed). Default: none.
        """
        return []

    # calling ------------------------------------------------------------
    @property
    def is_async(self) -> bool:
        """True when ``_run`` (or the wrapped function) is a coroutine function."""
        return _is_async_callable(self._signature_target())

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """Call the tool from Python and return its own value (a pydantic object stays one).

        Works for async tools too, from plain sync code and from sync code
        running inside an event loop. Keyword arguments are validated against
        ``args_schema`` as the model's are (a ``ValueError`` names a bad field; an
        argument the schema does not know is dropped with a warning); positional
        arguments go to ``_run`` as given. Each call takes one use: once
        ``max_usage_count`` is used up, the call returns a usage-limit
        :class:`ToolFailure` without running.
        """
        kwargs = self._checked_kwargs(args, kwargs)
        if not self._reserve_use():
            return self._usage_limit_failure()
        result = self._call_run(args, kwargs)
        if inspect.isawaitable(result):
            result = resolve_sync(result)
        return result

    async def arun(self, *args: Any, **kwargs: Any) -> Any:
        """Async form of :meth:`run`: the tool's own ``_arun`` when it has one, else an async
        ``_run`` awaited, or a sync one in a worker thread. Same checks and usage limit."""
        kwargs = self._checked_kwargs(args, kwargs)
        if not self._reserve_use():
            return self._usage_limit_failure()
        return await self._execute(args, kwargs)

    async def _execute(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run the tool without counting a use: its ``_arun`` if it defines one (CrewAI's async
        hook), else ``_run``; sync code goes to a thread so calls overlap."""
        # Looked up on the instance only when it can have one: a missing attribute would go
        # through pydantic's slow ``__getattr__`` on every call.
        own_async = getattr(self, "_arun", None) if _may_have_arun(self) else None
        if callable(own_async) and _is_async_callable(own_async):
            result = own_async(*args, **kwargs)
        elif self.is_async and not callable(own_async):
            result = self._call_run(args, kwargs)
        else:
            from crewgraph._internal.threads import in_thread

            if callable(own_async):
                result = await in_thread(_call_with, own_async, args, kwargs)
            else:
                result = await in_thread(self._call_run, args, kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _checked_kwargs(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Keyword arguments validated against ``args_schema`` (unknown ones dropped, with a warning)."""
        if args:
            return kwargs
        schema = self.args_schema
        names = set(schema.model_fields) | {f.alias for f in schema.model_fields.values() if f.alias}
        unknown = [k for k in kwargs if k not in names]
        if unknown and schema.model_config.get("extra") != "allow":
            warnings.warn(
                f"tool {self.name!r}: ignoring argument(s) {', '.join(map(repr, unknown))}: not in its "
                f"args_schema (it takes {', '.join(sorted(schema.model_fields)) or 'no arguments'})",
                UserWarning,
                stacklevel=3,
            )
            kwargs = {k: v for k, v in kwargs.items() if k not in unknown}
        try:
            return self.validate_arguments(kwargs)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise ValueError(f"tool {self.name!r}: invalid arguments: {problems}") from None

    def _usage_limit_failure(self) -> ToolFailure:
        from crewgraph.tools._messages import usage_limit_message

        return ToolFailure(
            message=usage_limit_message(self.name, self.max_usage_count),
            code="usage_limit_exceeded",
            reason=ToolFailureReason.USAGE_LIMIT,
        )

    def _call_run(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return self._run(*args, **kwargs)

    # model-facing -------------------------------------------------------
    def to_spec(self) -> ToolSpec:
        """The tool as the model sees it (name sanitized for function calling).

        Built once for a given name, description and ``args_schema`` (an agent step asks for it
        several times per model turn and per tool call) and rebuilt when one of them changes.
        A subclass with its own ``_spec_parameters`` is asked every time, since its parameters may
        depend on anything. Kept in the instance's ``__dict__`` beside the fields, which pydantic's
        equality, ``model_dump`` and ``repr`` ignore; shared, so it must not be mutated.
        """
        name, description, schema = self.name, self.description, self.args_schema
        cached = self.__dict__.get(_SPEC_KEY)
        if cached is not None and cached[0] is name and cached[1] is description and cached[2] is schema:
            spec: ToolSpec = cached[3]
            return spec
        spec = ToolSpec(name=sanitize_tool_name(name), description=description, parameters=self._spec_parameters())
        if type(self)._spec_parameters is BaseTool._spec_parameters:
            self.__dict__[_SPEC_KEY] = (name, description, schema, spec)
        return spec

    def _spec_parameters(self) -> dict[str, Any]:
        return spec_parameters(self.args_schema)

    def validate_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate a model's arguments; returns the keyword arguments for ``_run``.

        Raises ``pydantic.ValidationError`` (naming each bad field) on mismatch.
        Values keep their validated types (nested models stay model instances).
        """
        validated = self.args_schema.model_validate(arguments)
        values = validated.__dict__  # read directly: ``model_fields`` and ``getattr`` are slow paths here
        kwargs = {name: values[name] for name in type(validated).__pydantic_fields__}
        kwargs.update(validated.__pydantic_extra__ or {})
        return kwargs

    # usage limits -------------------------------------------------------
    @property
    def usage_limit_reached(self) -> bool:
        return self.max_usage_count is not None and self.current_usage_count >= self.max_usage_count

    def _count_use(self) -> None:
        with _USAGE_LOCK:
            self.current_usage_count += 1

    def _reserve_use(self) -> bool:
        """Take one use if the limit allows (atomically, for parallel calls)."""
        with _USAGE_LOCK:
            if self.usage_limit_reached:
                return False
            self.current_usage_count += 1
            return True

    def _release_use(self) -> None:
        """Give back a use taken by a call that will be retried."""
        with _USAGE_LOCK:
            self.current_usage_count = max(0, self.current_usage_count - 1)

    def reset_usage_count(self) -> None:
        """Start counting uses from zero again (e.g. between kickoffs), as CrewAI names it."""
        with _USAGE_LOCK:
            self.current_usage_count = 0

    def reset_usage(self) -> None:
        """The same as :meth:`reset_usage_count`."""
        self.reset_usage_count()

    # serialization ------------------------------------------------------
    @field_serializer("args_schema", "result_schema", "cache_function", when_used="json")
    def _serialize_reference(self, value: Any) -> str | None:
        if value is None or value is _default_cache_function:
            return None
        return _ref(value)

    @model_serializer(mode="wrap")
    def _serialize_with_type(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        data["tool_type"] = f"{type(self).__module__}.{type(self).__qualname__}"
        return data

    @property
    def tool_type(self) -> str:
        """``module.Class`` of this tool: what a dump records to rebuild the right class."""
        return f"{type(self).__module__}.{type(self).__qualname__}"

    @property
    def formatted_description(self) -> str:
        """The name, argument schema and description as a text-protocol prompt shows them."""
        from crewgraph.tools.structured_tool import format_description_for_llm

        return format_description_for_llm(self.name, self.args_schema, self.description)

    def to_structured_tool(self) -> Any:
        """This tool as a :class:`~crewgraph.tools.structured_tool.CrewStructuredTool` (CrewAI's):
        its ``invoke`` runs this tool's ``run`` (validation, usage limit), and given back to an
        agent it is this tool again."""
        from crewgraph.tools.structured_tool import CrewStructuredTool

        tool = CrewStructuredTool(
            name=self.name, description=self.description, args_schema=self.args_schema,
            result_schema=self.result_schema, func=self._call_as_structured,
            result_as_answer=self.result_as_answer, max_usage_count=self.max_usage_count,
            current_usage_count=self.current_usage_count, cache_function=self.cache_function,
            tool_failure_policy=self.tool_failure_policy,
        )
        tool._original_tool = self
        return tool

    def _call_as_structured(self, **kwargs: Any) -> Any:
        """What a structured view's ``invoke`` calls: the tool's own run, which counts the use
        (the view's counter is given back, so it is not counted twice)."""
        self.current_usage_count = max(0, self.current_usage_count - 1)
        return self.run(**kwargs)

    @classmethod
    def from_langchain(cls, tool: Any) -> BaseTool:
        """Wrap a LangChain-style tool (duck-typed; LangChain itself is never imported)."""
        from crewgraph.tools.adapters import from_langchain

        return from_langchain(tool)

    def _infer_result_schema(self) -> type[BaseModel] | None:
        try:
            hints = typing.get_type_hints(self._signature_target())
        except Exception:
            return None
        ret = hints.get("return")
        if isinstance(ret, type) and issubclass(ret, BaseModel) and not issubclass(ret, ToolFailure):
            return ret
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


P = typing.ParamSpec("P")
P2 = typing.ParamSpec("P2")
R = typing.TypeVar("R", covariant=True)
R2 = typing.TypeVar("R2")
"""CrewAI's type variables of ``Tool[P, R]`` and ``@tool``, importable from here as in CrewAI."""


def to_langchain(tools: list[Any]) -> list[Any]:
    """CrewAI's helper: each tool as a ``CrewStructuredTool`` (those already one stay as they are)."""
    from crewgraph.tools.structured_tool import CrewStructuredTool

    return [t if isinstance(t, CrewStructuredTool) else t.to_structured_tool() for t in tools]


def __getattr__(name: str) -> Any:
    # CrewAI code imports Tool and tool from base_tool; they live in function_tool
    # (which imports this module), so they are resolved on first access.
    if name in ("Tool", "tool"):
        from crewgraph.tools import function_tool

        return getattr(function_tool, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
