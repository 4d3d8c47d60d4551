"""CrewAI's experimental features, at ``crewai.experimental``'s import paths: the
conversational flow types (see :mod:`crewgraph.flow.conversational`) and agent evaluation
and experiments (:mod:`crewgraph.experimental.evaluation`). Names load on first use."""

from typing import Any

_CONVERSATIONAL = (
    "AgentMessage",
    "ConversationConfig",
    "ConversationEvent",
    "ConversationMessage",
    "ConversationState",
    "RouterConfig",
)
_EVALUATION = (
    "AgentEvaluationResult",
    "AgentEvaluator",
    "BaseEvaluator",
    "EvaluationScore",
    "EvaluationTraceCallback",
    "ExperimentResult",
    "ExperimentResults",
    "ExperimentRunner",
    "GoalAlignmentEvaluator",
    "MetricCategory",
    "ParameterExtractionEvaluator",
    "ReasoningEfficiencyEvaluator",
    "SemanticQualityEvaluator",
    "ToolInvocationEvaluator",
    "ToolSelectionEvaluator",
    "create_default_evaluator",
    "create_evaluation_callbacks",
)

__all__ = sorted([*_CONVERSATIONAL, *_EVALUATION])


def __getattr__(name: str) -> Any:  # loaded on first use
    if name in _CONVERSATIONAL:
        from crewgraph.flow.conversational import types

        return getattr(types, name)
    if name in _EVALUATION:
        from crewgraph.experimental import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
