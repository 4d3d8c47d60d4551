"""CrewAI's training files: pickles of plain data in the working directory.

``Crew.train`` writes two files, as CrewAI does, and the compiler reads them:

- ``training_data.pkl`` (:data:`TRAINING_DATA_FILE`): the session's raw reviews,
  ``{agent id: {iteration: {initial_output, human_feedback, improved_output}}}``;
- the trained-agents file (``trained_agents_data.pkl`` by default,
  :data:`TRAINED_AGENTS_DATA_FILE`): per agent *role*,
  ``{suggestions: [...], quality: float, final_summary: str}``.

A relative file name is taken in the current working directory (an absolute one
as it is) and ``.pkl`` is added when missing. Loading refuses anything but plain
containers and scalars: a pickle can run code when it is loaded, and these files
only ever hold data, so a tampered one is an error rather than a program.

This module sits at the bottom of the layers (stdlib only) because the compiler
and the agent-step node read it; the training run itself lives in
:mod:`crewgraph.training`.
"""

from __future__ import annotations

import io
import os
import pickle
import threading
from pathlib import Path
from typing import Any

__all__ = [
    "TRAINED_AGENTS_DATA_FILE",
    "TRAINING_DATA_FILE",
    "CrewTrainingHandler",
    "PickleHandler",
    "TrainingFileError",
    "instructions_block",
    "session_feedback",
    "trained_suggestions",
]

TRAINING_DATA_FILE = "training_data.pkl"
TRAINED_AGENTS_DATA_FILE = "trained_agents_data.pkl"

_SAFE_GLOBALS = frozenset(
    ("builtins", name)
    for name in ("dict", "list", "set", "frozenset", "tuple", "str", "bytes", "bytearray", "int", "float",
                 "complex", "bool", "NoneType")
)
_lock = threading.Lock()


class TrainingFileError(ValueError):
    """A training file that cannot be read as training data (names the file)."""


class _DataOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


class PickleHandler:
    """Save and load one pickle file (CrewAI's ``crewai.utilities.file_handler.PickleHandler``)."""

    def __init__(self, file_name: str) -> None:
        name = os.fspath(file_name)
        if not name.endswith(".pkl"):
            name += ".pkl"
        self.file_path = os.path.join(os.getcwd(), name)

    def initialize_file(self) -> None:
        """Start the file afresh: an empty dict, whatever it held."""
        self.save({})

    def save(self, data: Any) -> None:
        with _lock:
            Path(self.file_path).parent.mkdir(parents=True, exist_ok=True)
            tmp = f"{self.file_path}.tmp"
            with open(tmp, "wb") as f:
                pickle.dump(data, f)
            os.replace(tmp, self.file_path)

    def load(self) -> Any:
        """The file's data; ``{}`` when the file does not exist or is empty."""
        if not os.path.exists(self.file_path):
            return {}
        with _lock, open(self.file_path, "rb") as f:
            raw = f.read()
        if not raw:
            return {}
        try:
            return _DataOnlyUnpickler(io.BytesIO(raw)).load()
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError) as exc:
            raise TrainingFileError(
                f"{self.file_path} is not a crewgraph/CrewAI training file ({exc}); delete it or train again"
            ) from exc


class CrewTrainingHandler(PickleHandler):
    """The training files' two operations (CrewAI's ``CrewTrainingHandler``)."""

    def save_trained_data(self, agent_id: str, trained_data: dict[str, Any]) -> None:
        """Store ``trained_data`` under ``agent_id`` (the trained-agents file keys by role)."""
        data = self._dict()
        data[agent_id] = trained_data
        self.save(data)

    def append(self, train_iteration: int, agent_id: str, new_data: Any) -> None:
        """Record one iteration's review of one agent."""
        data = self._dict()
        data.setdefault(agent_id, {})[train_iteration] = new_data
        self.save(data)

    def clear(self) -> None:
        """Empty the file if it exists (a failed training leaves no half-written data)."""
        if os.path.exists(self.file_path):
            self.save({})

    def _dict(self) -> dict[Any, Any]:
        data = self.load()
        if not isinstance(data, dict):
            raise TrainingFileError(f"{self.file_path} holds {type(data).__name__}, not a dict of training data")
        return data


def instructions_block(lines: list[str]) -> str:
    """The text CrewAI appends to a trained agent's task prompt (empty when there is nothing)."""
    items = [str(x).strip() for x in lines if str(x).strip()]
    if not items:
        return ""
    return "\n\nYou MUST follow these instructions: \n - " + "\n - ".join(items)


def trained_suggestions(role: str, file: str | os.PathLike[str] | None = None) -> list[str]:
    """The suggestions the trained-agents file (``file``, else ``trained_agents_data.pkl`` in the
    working directory) holds for ``role``."""
    data = CrewTrainingHandler(os.fspath(file) if file else TRAINED_AGENTS_DATA_FILE).load()
    entry = data.get(role) if isinstance(data, dict) else None
    suggestions = entry.get("suggestions") if isinstance(entry, dict) else None
    return [str(s) for s in suggestions] if isinstance(suggestions, list | tuple) else []


def session_feedback(agent_id: str) -> list[str]:
    """The human feedback given so far this training session to the agent ``agent_id``."""
    data = CrewTrainingHandler(TRAINING_DATA_FILE).load()
    entries = data.get(agent_id) if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        return []
    return [str(e.get("human_feedback")) for _, e in sorted(entries.items()) if isinstance(e, dict)
            and e.get("human_feedback")]
