"""The LLM router of a conversational flow: the route catalog, the prompt, the decision."""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field, create_model

__all__ = ["route_with_config", "routes_of"]


def _labels(condition: Any) -> set[str]:
    from crewgraph.compiler.flow_compiler import TriggerSpec

    if isinstance(condition, TriggerSpec):
        found: set[str] = set()
        for item in condition.items:
            found |= _labels(item)
        return found - set(condition.methods)
    return {condition} if isinstance(condition, str) else set()


def _listeners(flow: Any) -> dict[str, str]:
    """Label -> the listener method that handles it (routers' own triggers excluded)."""
    from crewgraph.flow._spec import build_spec

    spec = type(flow)._spec or build_spec(type(flow), flow.flow_name)
    names = {m.name for m in spec.methods}
    found: dict[str, str] = {}
    for method in spec.methods:
        if method.trigger is None or method.router:
            continue
        for label in sorted(_labels(method.trigger) - names):
            found.setdefault(label, method.name)
    return found


def routes_of(flow: Any, router: Any) -> set[str]:
    """The routes the router may choose: ``router.routes``, else every listener label, plus
    the built-in ones."""
    custom = set(router.routes or ()) if router is not None else set()
    if not custom:
        custom = set(_listeners(flow)) - set(flow.builtin_routes) - set(flow.internal_routes)
    return custom | set(flow.builtin_routes)


def _catalog(flow: Any, router: Any) -> dict[str, str]:
    handlers = _listeners(flow)
    overrides = dict(router.route_descriptions or {})
    catalog: dict[str, str] = {}
    for label in routes_of(flow, router):
        if label in overrides:
            catalog[label] = overrides[label]
        elif label in flow.builtin_route_descriptions:
            catalog[label] = flow.builtin_route_descriptions[label]
        else:
            doc = getattr(getattr(type(flow), handlers.get(label, ""), None), "__doc__", None)
            catalog[label] = doc.strip().split("\n", 1)[0].strip() if doc else ""
    return catalog


def _intent(response: Any, field: str) -> str | None:
    parsed = getattr(response, "parsed", None)
    if parsed is not None:
        response = parsed
    if isinstance(response, BaseModel):
        value = getattr(response, field, None)
    elif isinstance(response, dict):
        value = response.get(field)
    elif isinstance(response, str):
        try:
            data = json.loads(response)
        except json.JSONDecodeError:
            value = response.strip()
        else:
            value = data.get(field) if isinstance(data, dict) else None
    else:
        value = getattr(response, field, None)
    if value is None:
        return None
    return str(value.value) if isinstance(value, Enum) else str(value)


def route_with_config(flow: Any, router: Any, context: dict[str, Any]) -> str | None:
    """Ask the router LLM for one route; its default/fallback intent when it cannot decide."""
    config = flow._conversation_config
    llm = router.llm or getattr(config, "intent_llm", None) or getattr(config, "llm", None)
    if llm is None:
        return router.default_intent
    catalog = _catalog(flow, router)
    fallback = router.fallback_intent or router.default_intent
    fields: dict[str, Any] = {router.intent_field: (str, Field(description=f"One of: {', '.join(sorted(catalog))}"))}
    fmt = router.response_format or create_model("ConversationRoute", **fields)
    routes = "\n".join(f"- {label}: {text}" if text else f"- {label}" for label, text in sorted(catalog.items()))
    system = ((f"{router.prompt}\n\n" if router.prompt else "") + "Routes:\n" + routes
              + "\n\nChoose exactly one route from the list above. Prefer 'converse' for follow-ups, summaries "
              "and clarifications about prior turns; use a custom route only for a fresh request for it.")
    messages = [{"role": "system", "content": system},
                {"role": "user", "content": json.dumps({**context, "available_routes": sorted(catalog)}, default=str)}]
    try:
        intent = _intent(flow._coerce_llm(llm).call(messages, response_model=fmt), router.intent_field)
    except Exception:
        return fallback
    if intent is None or intent not in catalog:
        return fallback
    return intent
