"""Best-effort discovery of the labels a router may return.

Order of trust: labels declared in ``@router(labels=...)``; a ``Literal[...]``
or Enum return annotation; the constants of its ``return`` statements (read
with ``ast`` from the source). Anything else (a computed string, source not
available) marks the router *open*: it may return labels we cannot see, so
the compiler will not call a label unknown just because no router lists it.
"""

from __future__ import annotations

import ast
import enum
import inspect
import textwrap
import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["router_labels"]


def router_labels(fn: Callable[..., Any], declared: tuple[str, ...] | None) -> tuple[tuple[str, ...], bool]:
    """``(labels, open)`` for the router ``fn``."""
    if declared is not None:
        return tuple(dict.fromkeys(declared)), False
    found = _from_annotation(fn)
    if found is not None:
        return found
    return _from_source(fn)


def _from_annotation(fn: Callable[..., Any]) -> tuple[tuple[str, ...], bool] | None:
    try:
        ret = typing.get_type_hints(fn).get("return")
    except Exception:
        return None
    if ret is None:
        return None
    labels: list[str] = []
    if not _collect_type(ret, labels):
        return None
    return tuple(dict.fromkeys(labels)), False


def _collect_type(tp: Any, out: list[str]) -> bool:
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        values = typing.get_args(tp)
        if not all(isinstance(v, str | enum.Enum) or v is None for v in values):
            return False
        out.extend(_enum_label(v) if isinstance(v, enum.Enum) else v for v in values if v is not None)
        return True
    if origin in (typing.Union, types.UnionType):
        return all(_collect_type(arg, out) for arg in typing.get_args(tp))
    if tp is type(None):
        return True
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        out.extend(_enum_label(m) for m in tp)
        return True
    return False


def _enum_label(member: enum.Enum) -> str:
    return member.value if isinstance(member.value, str) else member.name


def _from_source(fn: Callable[..., Any]) -> tuple[tuple[str, ...], bool]:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return (), True
    func = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None)
    if func is None:
        return (), True
    labels: list[str] = []
    is_open = False
    for ret in _returns(func):
        is_open |= not _collect_expr(ret.value, fn, labels)
    return tuple(dict.fromkeys(labels)), is_open


def _returns(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    found: list[ast.Return] = []
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue  # returns of nested functions are not the router's
        if isinstance(node, ast.Return):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda r: (r.lineno, r.col_offset))  # source order


def _collect_expr(expr: ast.expr | None, fn: Callable[..., Any], out: list[str]) -> bool:
    if expr is None:
        return True
    if isinstance(expr, ast.Constant):
        if expr.value is None:
            return True
        if isinstance(expr.value, str):
            out.append(expr.value)
            return True
        return False
    if isinstance(expr, ast.IfExp):
        return _collect_expr(expr.body, fn, out) & _collect_expr(expr.orelse, fn, out)
    if isinstance(expr, ast.Attribute):
        member = _resolve(expr, getattr(fn, "__globals__", {}))
        if isinstance(member, enum.Enum):
            out.append(_enum_label(member))
            return True
    return False


def _resolve(expr: ast.expr, scope: dict[str, Any]) -> Any:
    if isinstance(expr, ast.Name):
        return scope.get(expr.id)
    if isinstance(expr, ast.Attribute):
        base = _resolve(expr.value, scope)
        return getattr(base, expr.attr, None) if base is not None else None
    return None
