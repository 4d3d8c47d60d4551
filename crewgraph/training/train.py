"""``Crew.train``: kick the crew off ``n_iterations`` times with a person reviewing every task,
then distil the reviews into per-role suggestions in the trained-agents file.

As CrewAI trains: each iteration every task is reviewed once (``human_input``) through
the crew's ``input_provider`` (the console by default); the person's feedback makes the
agent revise once. ``training_data.pkl`` (working directory) collects, per agent id and
iteration, the first answer, the feedback and the revision, and the feedback of earlier
iterations goes into the agent's prompt in later ones. At the end each agent's model turns
its reviews into a :class:`~crewgraph.training.evaluation.TrainingTaskEvaluation`
(``suggestions``, ``quality``, ``final_summary``), saved under the agent's role in
``filename``. Later kickoffs read ``trained_agents_data.pkl`` from the working directory
and append an agent's suggestions to its task prompts.

The reviews come back from the run itself (each agent step's ``info["training"]`` in the
executed graph), so nothing but this module writes the files.
"""

from __future__ import annotations

import logging
from typing import Any

from crewgraph._internal.training_files import TRAINING_DATA_FILE, CrewTrainingHandler
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.training_events import (
    CrewTrainCompletedEvent,
    CrewTrainFailedEvent,
    CrewTrainStartedEvent,
)
from crewgraph.training.evaluation import TaskEvaluator

__all__ = ["check_train_args", "train_crew"]

logger = logging.getLogger("crewgraph.training")


def check_train_args(n_iterations: Any, filename: Any) -> None:
    """CrewAI's two rules: a positive whole number of iterations, a ``.pkl`` file name."""
    if isinstance(n_iterations, bool) or not isinstance(n_iterations, int) or n_iterations < 1:
        raise ValueError(f"n_iterations must be a positive integer, got {n_iterations!r}")
    if not isinstance(filename, str) or not filename.endswith(".pkl"):
        raise ValueError(f"filename must end with .pkl, got {filename!r}")


def train_crew(crew: Any, n_iterations: int, filename: str, inputs: dict[str, Any] | None = None) -> None:
    """Train ``crew`` (see the module docstring). On failure both files are emptied and the
    error is raised after a ``CrewTrainFailedEvent``."""
    check_train_args(n_iterations, filename)
    inputs = dict(inputs or {})
    crewgraph_event_bus.emit(crew, CrewTrainStartedEvent(crew_name=crew.name, n_iterations=n_iterations,
                                                         filename=filename, inputs=inputs))
    session = CrewTrainingHandler(TRAINING_DATA_FILE)
    trained = CrewTrainingHandler(filename)
    was_training = crew._train
    try:
        session.initialize_file()
        trained.initialize_file()
        crew._train = True
        for iteration in range(n_iterations):
            crew._train_iteration = iteration
            output = crew.kickoff(inputs=inputs)
            _record(crew, output, iteration, session)
        crew._train = was_training
        crew._train_iteration = None
        data = session.load()
        for agent in crew.agents:
            if not data.get(str(agent.id)):
                continue
            evaluator = TaskEvaluator(agent)
            if evaluator.llm is None:
                evaluator.llm = crew.llm
            result = evaluator.evaluate_training_data(training_data=data, agent_id=str(agent.id))
            trained.save_trained_data(agent_id=str(agent.role), trained_data=result.model_dump())
        crewgraph_event_bus.emit(crew, CrewTrainCompletedEvent(crew_name=crew.name, n_iterations=n_iterations,
                                                               filename=filename))
    except BaseException as exc:
        crew._train = was_training
        crew._train_iteration = None
        crewgraph_event_bus.emit(crew, CrewTrainFailedEvent(crew_name=crew.name, error=str(exc)))
        logger.error("Training failed: %s", exc)
        session.clear()
        trained.clear()
        raise


def _record(crew: Any, output: Any, iteration: int, session: CrewTrainingHandler) -> None:
    """Append this iteration's reviews (read from the run's agent steps) to ``training_data.pkl``.

    An agent working several tasks keeps the last one's review for the iteration, as the
    file is keyed by agent and iteration."""
    if getattr(output, "pending", False) is True or getattr(output, "graph", None) is None:
        raise RuntimeError("a training kickoff did not finish (it paused or returned no run graph)")
    graph = output.graph
    agents = _step_agents(crew)
    for record in graph.records():
        review = record.info.get("training") if record.kind == "agent_step" else None
        if not review or not review.get("human_feedback"):
            continue
        agent = agents.get(record.node_id)
        if agent is None:
            continue
        review.setdefault("improved_output", review.get("initial_output", ""))
        session.append(iteration, str(agent.id), dict(review))


def _step_agents(crew: Any) -> dict[str, Any]:
    """Agent step node id -> the agent doing it (the manager in a hierarchical crew)."""
    graph = crew.compile()
    manager = getattr(crew, "manager_agent", None)
    steps: dict[str, Any] = {}
    for plan in graph.meta.get("tasks", []):
        task = crew.tasks[plan["index"]]
        agent = task.agent if task.agent is not None else manager
        if agent is not None:
            steps[plan["agent"]] = agent
    return steps
