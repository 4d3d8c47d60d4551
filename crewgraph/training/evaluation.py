"""Models judging work: a task's output (``TaskEvaluator.evaluate``) and a training session's
reviews (``TaskEvaluator.evaluate_training_data``), with CrewAI's result models.

The judge is the agent's own model, asked for a structured reply (``response_model``), so
any ``BaseLLM`` works, ``FakeLLM`` and a custom ``call()`` override included.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, Field

from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.training_events import TaskEvaluationEvent

__all__ = ["Entity", "TaskEvaluation", "TaskEvaluator", "TrainingTaskEvaluation", "as_llm"]

M = TypeVar("M", bound=BaseModel)


class Entity(BaseModel):
    name: str = Field(description="The name of the entity.")
    type: str = Field(description="The type of the entity.")
    description: str = Field(description="Description of the entity.")
    relationships: list[str] = Field(description="Relationships of the entity.")


class TaskEvaluation(BaseModel):
    """A judge's view of one task's output."""

    suggestions: list[str] = Field(description="Suggestions to improve future similar tasks.")
    quality: float = Field(
        default=5.0,
        description="A score from 0 to 10 on completion, quality and overall performance, given the "
        "task description, the expected output and the result.",
    )
    entities: list[Entity] = Field(default_factory=list, description="Entities extracted from the task output.")


class TrainingTaskEvaluation(BaseModel):
    """What a training session taught one agent: saved per role in the trained-agents file."""

    suggestions: list[str] = Field(
        description="Clear, actionable instructions derived from the human feedback, for the agent's "
        "future tasks; every specific point of the feedback is covered."
    )
    quality: float = Field(
        description="A score from 0 to 10 of how much the improved outputs improved on the initial "
        "ones, given the human feedback."
    )
    final_summary: str = Field(
        description="Step-by-step action items for the agent's next tasks, from the feedback and the "
        "improved outputs."
    )


def as_llm(llm: Any, what: str) -> Any:
    """A ``BaseLLM`` for ``llm`` (a model name becomes an ``LLM``); None is an error naming ``what``."""
    from crewgraph.llm.base import BaseLLM

    if isinstance(llm, BaseLLM):
        return llm
    if isinstance(llm, str) and llm.strip():
        from crewgraph.llm import LLM

        return LLM(model=llm)
    if llm is None:
        raise ValueError(f"{what} has no model to evaluate with: give it an llm")
    raise TypeError(f"{what}: expected a model name or a BaseLLM, got {type(llm).__name__}")


def ask_structured(llm: Any, system: str, prompt: str, model: type[M], what: str) -> M:
    """One structured call: the reply validated as ``model`` (a clear error if it is not)."""
    from crewgraph._internal.sync import run_sync

    messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    reply = run_sync(llm.acall(messages, response_model=model))
    parsed = getattr(reply, "parsed", None)
    if isinstance(parsed, model):
        return parsed
    if isinstance(parsed, BaseModel):
        return model.model_validate(parsed.model_dump())
    content = getattr(reply, "content", None) or ""
    from crewgraph.llm.structured import parse_model_output

    try:
        return parse_model_output(content, model)
    except Exception as exc:
        raise ValueError(f"{what}: the model's reply is not a valid {model.__name__}: {content[:200]!r}") from exc


class TaskEvaluator:
    """Evaluates an agent's work with the agent's model (CrewAI's ``TaskEvaluator``)."""

    def __init__(self, original_agent: Any) -> None:
        self.original_agent = original_agent
        self.llm = original_agent.llm

    def evaluate(self, task: Any, output: str) -> TaskEvaluation:
        """Judge ``output`` against the task's description and expected output."""
        crewgraph_event_bus.emit(self, TaskEvaluationEvent(evaluation_type="task_evaluation", task=task))
        prompt = (
            "Assess the quality of the task completed based on the description, expected output, and "
            f"actual results.\n\nTask Description:\n{task.description}\n\nExpected Output:\n"
            f"{task.expected_output}\n\nActual Output:\n{output}\n\nGive suggestions to improve future "
            "similar tasks, a quality score from 0 to 10, and the entities the output mentions."
        )
        llm = as_llm(self.llm, f"agent {self.original_agent.role!r}")
        return ask_structured(llm, "You evaluate completed work. Reply with the requested JSON.", prompt,
                              TaskEvaluation, f"evaluating task {getattr(task, 'name', None) or task.description[:40]!r}")

    def evaluate_training_data(self, training_data: dict[str, Any], agent_id: str) -> TrainingTaskEvaluation:
        """Distil one agent's reviews of a training session (``training_data[agent_id]``:
        ``{iteration: {initial_output, human_feedback, improved_output}}``) into suggestions."""
        crewgraph_event_bus.emit(self, TaskEvaluationEvent(evaluation_type="training_data_evaluation"))
        entries = training_data.get(agent_id)
        if not isinstance(entries, dict) or not entries:
            raise ValueError(f"no training data for agent {agent_id!r}")
        parts: list[str] = []
        for iteration, data in sorted(entries.items()):
            missing = [k for k in ("initial_output", "human_feedback", "improved_output") if not data.get(k)]
            if missing:
                raise ValueError(
                    f"training data of agent {agent_id!r}, iteration {iteration}, lacks {', '.join(missing)}: "
                    "the training run was interrupted or the file was edited; train again"
                )
            parts.append(
                f"Iteration: {iteration}\nInitial Output:\n{data['initial_output']}\n\n"
                f"Human Feedback:\n{data['human_feedback']}\n\nImproved Output:\n{data['improved_output']}\n\n"
                "------------------------------------------------\n"
            )
        prompt = (
            "Assess the quality of the training data based on the llm output, human feedback, and llm "
            "output improved result.\n\n" + "\n".join(parts) + "\nPlease provide:\n"
            "- a list of clear, actionable instructions derived from the human feedback to improve the "
            "agent's performance (compare the initial and improved outputs; cover every specific point "
            "of the feedback);\n"
            "- a score from 0 to 10 of how much the improved output improved on the initial output;\n"
            "- a final summary: step-by-step action items for the agent's next tasks."
        )
        llm = as_llm(self.llm, f"agent {self.original_agent.role!r}")
        return ask_structured(llm, "You turn human feedback on an agent's work into instructions for it.",
                              prompt, TrainingTaskEvaluation, f"evaluating the training of {self.original_agent.role!r}")
