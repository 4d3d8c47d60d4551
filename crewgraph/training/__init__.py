"""Training and evaluating crews: ``Crew.train`` and ``Crew.test`` (CrewAI's features).

See docs/training.md. The file formats are in :mod:`crewgraph._internal.training_files`.
"""

from crewgraph._internal.training_files import (
    TRAINED_AGENTS_DATA_FILE,
    TRAINING_DATA_FILE,
    CrewTrainingHandler,
    PickleHandler,
    TrainingFileError,
)

__all__ = [
    "TRAINED_AGENTS_DATA_FILE",
    "TRAINING_DATA_FILE",
    "CrewTrainingHandler",
    "PickleHandler",
    "TrainingFileError",
]
