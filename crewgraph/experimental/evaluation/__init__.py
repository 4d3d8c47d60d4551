"""Agent evaluation and experiments (CrewAI's ``crewai.experimental.evaluation``).

Importing this package is cheap: rich and the judge models load on first use.
"""

from crewgraph.experimental.evaluation.agent_evaluator import (
    AgentEvaluator,
    ExecutionState,
    create_default_evaluator,
)
from crewgraph.experimental.evaluation.base_evaluator import (
    AgentAggregatedEvaluationResult,
    AgentEvaluationResult,
    AggregationStrategy,
    BaseEvaluator,
    EvaluationScore,
    MetricCategory,
)
from crewgraph.experimental.evaluation.evaluation_listener import (
    EvaluationTraceCallback,
    create_evaluation_callbacks,
)
from crewgraph.experimental.evaluation.experiment import (
    ExperimentResult,
    ExperimentResults,
    ExperimentRunner,
)
from crewgraph.experimental.evaluation.goal_metrics import (
    GoalAlignmentEvaluator,
    SemanticQualityEvaluator,
)
from crewgraph.experimental.evaluation.reasoning_metrics import ReasoningEfficiencyEvaluator
from crewgraph.experimental.evaluation.tools_metrics import (
    ParameterExtractionEvaluator,
    ToolInvocationEvaluator,
    ToolSelectionEvaluator,
)

__all__ = [
    "AgentAggregatedEvaluationResult",
    "AgentEvaluationResult",
    "AgentEvaluator",
    "AggregationStrategy",
    "BaseEvaluator",
    "EvaluationScore",
    "EvaluationTraceCallback",
    "ExecutionState",
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
]
