"""A declaration's ``conversational:`` block as the live :class:`ConversationConfig`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crewgraph.flow.conversational.types import ConversationConfig, RouterConfig

__all__ = ["config_from_definition", "conversational_state"]


def conversational_state(declared: Any) -> Any:
    """The state of a declared conversational flow: ``ConversationState``, keeping what the
    document declared (a dict's defaults as extra fields, a model's fields by composition)."""
    from pydantic import BaseModel, ConfigDict

    from crewgraph.flow.conversational.types import ConversationState

    if declared is None:
        return ConversationState
    if isinstance(declared, dict):
        class DeclaredConversationState(ConversationState):
            model_config = ConfigDict(extra="allow")

        return DeclaredConversationState(**{k: v for k, v in declared.items() if k != "id"})
    model = type(declared) if isinstance(declared, BaseModel) else declared
    if isinstance(model, type) and issubclass(model, ConversationState):
        return declared
    composed = type(f"Conversational{model.__name__}", (ConversationState, model), {})
    if isinstance(declared, BaseModel):
        return composed(**declared.model_dump(exclude={"id"}))
    return composed


def config_from_definition(definition: Any, root: Path | None) -> ConversationConfig:
    """``FlowConversationalDefinition`` -> ``ConversationConfig`` (the router's
    ``response_format`` imported relative to the document's folder)."""
    router = None
    if definition.router is not None:
        spec = definition.router
        response_format = None
        if spec.response_format is not None:
            from crewgraph.flow.declarative.actions import _import

            response_format = _import(spec.response_format.python, "conversational.router.response_format", root)
        router = RouterConfig(
            prompt=spec.prompt, response_format=response_format, llm=spec.llm, routes=spec.routes,
            route_descriptions=spec.route_descriptions, default_intent=spec.default_intent,
            fallback_intent=spec.fallback_intent, intent_field=spec.intent_field,
        )
    return ConversationConfig(
        system_prompt=definition.system_prompt, llm=definition.llm, router=router,
        answer_from_history_prompt=definition.answer_from_history_prompt,
        default_intents=definition.default_intents, intent_llm=definition.intent_llm,
        answer_from_history_llm=definition.answer_from_history_llm,
        visible_agent_outputs=definition.visible_agent_outputs,
        defer_trace_finalization=definition.defer_trace_finalization, trace_scope=definition.trace_scope,
    )
