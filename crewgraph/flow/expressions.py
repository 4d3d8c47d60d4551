"""CrewAI's flow expression language: CEL, inside ``${...}`` in declarative flows.

A ``crewai.flow/v1`` document reads flow data with `CEL <https://cel.dev>`_:
``expr:`` of an ``expression`` action, ``in:`` of ``each``, ``if:`` of an
``each`` step are whole expressions; strings in ``with:``/``inputs:`` blocks are
*templates* where each ``${...}`` is one. A template that is exactly one
``${...}`` keeps the value's type (a list stays a list); mixed with text the
result is text, non-text values written as JSON and ``null`` as nothing.
Roots are ``state`` and ``outputs`` (``outputs.<method>`` is that method's
result, serialized: a crew's ``raw``, ``tasks_output``...), plus ``item`` inside
``each``; ``now()`` is the run's frozen UTC time. Evaluation is ``cel-python``'s
(``crewgraph[flows]``), imported on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, NamedTuple, TypeAlias

from crewgraph.errors import MissingExtraError

__all__ = ["Expression", "ExpressionData", "ExpressionError", "to_plain"]

ExpressionData: TypeAlias = str | int | float | bool | list[Any] | dict[str, Any] | None
_MACROS = frozenset({"all", "exists", "exists_one", "filter", "map"})


class ExpressionError(ValueError):
    """An expression failed to parse, validate or evaluate (the message says where)."""


def _celpy() -> Any:
    try:
        import celpy
    except ImportError:
        raise MissingExtraError(
            "CEL expressions in declarative flows need cel-python: pip install 'crewgraph[flows]'",
            extra="flows",
            module="celpy",
        ) from None
    return celpy


@lru_cache(maxsize=1)
def _environment() -> Any:
    celpy = _celpy()
    from celpy import celtypes

    return celpy.Environment(annotations={"now": celtypes.FunctionType})


@lru_cache(maxsize=512)
def _compiled(source: str) -> Any:
    return _environment().compile(source)


class _Segment(NamedTuple):
    source: str


def _closing(value: str, start: int) -> int:
    """Index of the ``}`` closing the ``${`` whose body starts at ``start`` (strings and
    nested braces inside the expression are skipped)."""
    depth, i, quote = 1, start, ""
    while i < len(value):
        ch = value[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ExpressionError(f"unterminated ${{...}} expression in {value!r}")


@lru_cache(maxsize=512)
def _segments(value: str) -> tuple[str | _Segment, ...]:
    parts: list[str | _Segment] = []
    index = 0
    while (start := value.find("${", index)) != -1:
        if start > index:
            parts.append(value[index:start])
        end = _closing(value, start + 2)
        source = value[start + 2 : end].strip()
        if not source:
            raise ExpressionError(f"empty ${{}} expression in {value!r}")
        parts.append(_Segment(source))
        index = end + 1
    if index < len(value) or not parts:
        parts.append(value[index:])
    return tuple(parts)


def _roots(tree: Any, bound: frozenset[str] = frozenset()) -> set[str]:
    """Identifiers an expression reads from its context (macro variables excluded)."""
    from lark import Token, Tree

    if isinstance(tree, Token) or not isinstance(tree, Tree):
        return set()
    if tree.data == "primary" and tree.children:
        child = tree.children[0]
        if isinstance(child, Tree) and child.data == "ident" and child.children:
            name = str(child.children[0])
            return set() if name in bound else {name}
    if tree.data == "member_dot_arg" and len(tree.children) >= 3:
        target, method, args = tree.children[0], str(tree.children[1]), tree.children[2]
        found = _roots(target, bound)
        exprs = list(getattr(args, "children", ()))
        if method in _MACROS and len(exprs) >= 2:
            local = _roots(exprs[0])
            for expr in exprs[1:]:
                found |= _roots(expr, bound | frozenset(local))
            return found
        for expr in exprs:
            found |= _roots(expr, bound)
        return found
    found = set()
    for child in tree.children:
        found |= _roots(child, bound)
    return found


def to_plain(value: Any) -> Any:
    """A JSON-like copy of ``value`` (models dumped, objects with ``raw`` as their dump)."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return to_plain(value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [to_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    dump = getattr(value, "model_dump", None) or getattr(value, "to_dict", None)
    if callable(dump):
        try:
            return to_plain(dump())
        except Exception:
            pass
    return str(value)


class Expression:
    """One CEL expression or template, with the context it is evaluated in."""

    def __init__(self, value: ExpressionData, *, context: dict[str, Any] | None = None, now: datetime | None = None) -> None:
        self.value = value
        self.context = context
        self.now = now

    @classmethod
    def from_flow(cls, value: ExpressionData, flow: Any, *, local_context: dict[str, Any] | None = None) -> Expression:
        """An expression over a running flow: ``state``, ``outputs`` and any local names."""
        from crewgraph.flow.state import state_to_dict

        outputs = dict(getattr(flow, "_declared_outputs", {}) or {})
        local = dict(local_context or {})
        outputs.update(local.pop("outputs", None) or {})
        context: dict[str, Any] = {"state": to_plain(state_to_dict(flow.state)), "outputs": to_plain(outputs)}
        context.update({k: to_plain(v) for k, v in local.items() if k != "state"})
        return cls(value, context=context, now=getattr(flow, "_cel_now", None))

    # ------------------------------------------------------------------ checks
    def validate_expression(self, *, allowed_roots: Iterable[str], source: str = "CEL expression") -> None:
        """Parse a whole expression and check it only reads ``allowed_roots``."""
        allowed = frozenset(allowed_roots)
        text = self._source(self.value, source)
        try:
            tree = _compiled(text)
        except MissingExtraError:
            raise
        except Exception as exc:
            raise ExpressionError(f"invalid CEL expression at {source}: {_caret(text, exc)}") from None
        unknown = sorted(_roots(tree) - allowed)
        if unknown:
            raise ExpressionError(
                f"unknown CEL root at {source}: {', '.join(map(repr, unknown))}; allowed roots: "
                f"{', '.join(sorted(allowed))} (read flow data as state.field or outputs.method)"
            )

    def validate_template(self, *, allowed_roots: Iterable[str], source: str = "with block") -> None:
        """Check every ``${...}`` inside the (nested) value."""
        _walk_template(self.value, source, lambda text, where: Expression(text).validate_expression(
            allowed_roots=allowed_roots, source=where))

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, context: dict[str, Any] | None = None) -> Any:
        """The value of this whole expression."""
        return self._eval(self._source(self.value, "CEL expression"), self._context(context))

    def render_template(self, context: dict[str, Any] | None = None) -> Any:
        """The value with each ``${...}`` in its strings replaced by what it evaluates to."""
        return self._render(self.value, self._context(context))

    def _context(self, context: dict[str, Any] | None) -> dict[str, Any]:
        chosen = self.context if context is None else context
        return dict(chosen or {})

    def _render(self, value: Any, context: dict[str, Any]) -> Any:
        if isinstance(value, dict):
            return {k: self._render(v, context) for k, v in value.items()}
        if isinstance(value, list):
            return [self._render(v, context) for v in value]
        if not isinstance(value, str):
            return value
        parts = _segments(value)
        exprs = [p for p in parts if isinstance(p, _Segment)]
        if not exprs:
            return value
        if len(exprs) == 1 and all(not p.strip() for p in parts if isinstance(p, str)):
            return self._eval(exprs[0].source, context)
        out: list[str] = []
        for part in parts:
            if isinstance(part, _Segment):
                result = self._eval(part.source, context)
                out.append("" if result is None else result if isinstance(result, str) else json.dumps(result))
            else:
                out.append(part)
        return "".join(out)

    def _eval(self, source: str, context: dict[str, Any]) -> Any:
        celpy = _celpy()
        from celpy import celtypes
        from celpy.adapter import CELJSONEncoder, json_to_cel

        moment = self.now or datetime.now(UTC)
        try:
            program = _environment().program(_compiled(source), functions={"now": lambda: celtypes.TimestampType(moment)})
            result = program.evaluate(json_to_cel(context))
            if isinstance(result, celpy.CELEvalError):
                raise result
            return json.loads(json.dumps(result, cls=CELJSONEncoder))
        except MissingExtraError:
            raise
        except Exception as exc:
            raise ExpressionError(f"failed to evaluate CEL expression {source!r}: {_first_line(exc)}") from None

    @staticmethod
    def _source(value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise ExpressionError(f"{where}: a CEL expression is a string, got {value!r}")
        text = value.strip()
        if text.startswith("${") and text.endswith("}"):
            text = text[2:-1].strip()
        if not text:
            raise ExpressionError(f"empty CEL expression at {where} (write one such as state.topic)")
        return text


def _walk_template(value: Any, where: str, check: Any, keys: tuple[Any, ...] = ()) -> None:
    """Check each ``${...}`` of a nested value; an error carries ``keys``, the path inside it."""
    if isinstance(value, dict):
        for key, item in value.items():
            _walk_template(item, f"{where}.{key}", check, (*keys, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk_template(item, f"{where}[{index}]", check, (*keys, index))
    elif isinstance(value, str):
        try:
            for part in _segments(value):
                if isinstance(part, _Segment):
                    check(part.source, where)
        except ExpressionError as exc:
            if "unterminated" in str(exc) or "empty ${}" in str(exc):
                exc = ExpressionError(f"{exc} at {where}")
            exc.keys = keys  # type: ignore[attr-defined]
            raise exc from None


def _caret(text: str, exc: BaseException) -> str:
    """``'stat.x +' (syntax error at column 8)`` from the parser's caret drawing."""
    lines = str(exc).splitlines()
    caret = next((line for line in lines if line.strip() == "^"), None)
    if caret is not None:
        return f"{text!r} (syntax error at column {caret.index('^') + 1})"
    return f"{text!r}: {_first_line(exc)}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    found = re.search(r"undeclared reference to \\?'([^'\\]+)", text)
    if found:
        return f"unknown name or function {found.group(1)!r}"
    if len(text) > 300:
        text = text[:300] + "..."
    return text.splitlines()[0] if text else type(exc).__name__
