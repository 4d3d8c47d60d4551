"""Read a Flow class's decorated methods into the compiler's plain-data FlowSpec."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from crewgraph.flow._labels import router_labels
from crewgraph.flow.conditions import FlowCondition
from crewgraph.flow.decorators import FlowMark, get_mark

if TYPE_CHECKING:
    from crewgraph.compiler.flow_compiler import FlowMethodSpec, FlowSpec, TriggerSpec

__all__ = ["TRIGGER_PAYLOAD_KEYS", "build_spec", "flow_methods"]

TRIGGER_PAYLOAD_KEYS = ("crewai_trigger_payload", "crewgraph_trigger_payload")
"""The ``kickoff(inputs=...)`` keys holding trigger data; a start method with a parameter
of one of these names receives it when the flow is kicked off."""


def flow_methods(cls: type) -> dict[str, Callable[..., Any]]:
    """Decorated methods by name, in definition order (a subclass's override keeps the
    base's position; an undecorated override removes the method from the flow)."""
    found: dict[str, Callable[..., Any]] = {}
    for klass in reversed(cls.__mro__):
        for name, attr in vars(klass).items():
            if get_mark(attr) is not None:
                found[name] = attr
            elif name in found:
                del found[name]
    return found


def _trigger(condition: Any) -> TriggerSpec:
    from crewgraph.compiler.flow_compiler import TriggerSpec

    if isinstance(condition, FlowCondition):
        items: list[str | TriggerSpec] = []
        methods: set[str] = set()
        for item in condition.conditions:
            if isinstance(item, FlowCondition):
                items.append(_trigger(item))
            elif isinstance(item, str):
                items.append(item)
            else:
                items.append(item.__name__)
                methods.add(item.__name__)
        if condition.type == "AND":
            return TriggerSpec("and", tuple(items), frozenset(methods))
        return TriggerSpec("or", tuple(items), frozenset(methods))
    if isinstance(condition, str):
        return TriggerSpec("or", (condition,))
    name = condition.__name__
    return TriggerSpec("or", (name,), frozenset({name}))


def _method_spec(name: str, fn: Callable[..., Any], mark: FlowMark) -> FlowMethodSpec:
    from crewgraph.compiler.flow_compiler import FlowMethodSpec
    from crewgraph.errors import FlowDefinitionError

    conditions: list[Any] = []
    for condition in mark.conditions:
        if condition not in conditions:
            conditions.append(condition)
    if len(conditions) > 1:
        raise FlowDefinitionError(
            f"method {name!r} has several triggers from stacked decorators; "
            "combine them with or_(...) / and_(...) in one decorator",
            task=name,
        )
    params = list(inspect.signature(fn).parameters.values())[1:]  # drop self
    positional = [
        p for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    payload_param = next((p.name for p in params if p.name in TRIGGER_PAYLOAD_KEYS), None)
    if payload_param is not None:
        positional = [p for p in positional if p.name != payload_param]
    first = positional[0] if positional else None
    feedback = getattr(fn, "__crewgraph_feedback__", None)  # @human_feedback(emit=[...])
    router = mark.router or feedback is not None
    declared = tuple(feedback) if feedback is not None else mark.labels
    labels, is_open = router_labels(fn, declared) if router else ((), False)
    return FlowMethodSpec(
        name=name,
        fn=fn,
        start=mark.start,
        router=router,
        trigger=_trigger(conditions[0]) if conditions else None,
        labels=labels,
        open_labels=is_open,
        declared_labels=router and declared is not None,
        is_async=inspect.iscoroutinefunction(fn),
        payload_param=payload_param if mark.start else None,
        takes_arg=first is not None,
        arg_optional=first is not None and (first.kind == first.VAR_POSITIONAL or first.default is not first.empty),
    )


def build_spec(cls: type, name: str) -> FlowSpec:
    from crewgraph.compiler.flow_compiler import FlowSpec

    methods = []
    for method_name, fn in flow_methods(cls).items():
        mark = get_mark(fn)
        assert mark is not None
        methods.append(_method_spec(method_name, fn, mark))
    return FlowSpec(name=name, methods=tuple(methods))
