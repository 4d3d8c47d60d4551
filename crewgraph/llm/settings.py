"""The environment variables that configure models, read in one place.

The library, ``crewgraph run`` and the examples all read the same variables
through these functions, so a variable means the same thing everywhere:

- the default model (for agents, managers, planners and memories given no
  ``llm``): ``CREWGRAPH_MODEL``, else CrewAI's ``MODEL``, ``MODEL_NAME`` and
  ``OPENAI_MODEL_NAME``, else ``gpt-4o-mini``;
- the default model's server: ``BASE_URL``/``API_BASE`` (what ``crewai create``
  writes into a project's ``.env``) -- only for that default model, as
  CrewAI does, because those names are too generic to apply to every
  ``LLM``; ``OPENAI_BASE_URL``/``OPENAI_API_BASE`` and each provider's own
  variables are read by :mod:`crewgraph.llm.providers` for any model;
- request settings for every ``LLM`` that does not set them:
  ``CREWGRAPH_LLM_TIMEOUT``, ``CREWGRAPH_LLM_IDLE_TIMEOUT``,
  ``CREWGRAPH_LLM_MAX_TOKENS``, ``CREWGRAPH_LLM_MAX_RETRIES``,
  ``CREWGRAPH_LLM_TIMEOUT_RETRIES`` and ``CREWGRAPH_LLM_CONCURRENCY``.

``CREWGRAPH_LLM`` is the command line's ``--llm`` (it replaces every model of a
crew run by ``crewgraph run``; see ``crewgraph.cli._llm``). A project's
``.env`` is loaded by :func:`load_dotenv_file` without overriding variables
already set, as ``crewai run`` does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from crewgraph.errors import ConfigurationError

if TYPE_CHECKING:
    from crewgraph.llm.openai_llm import LLM

__all__ = [
    "DEFAULT_MODEL",
    "MODEL_ENVS",
    "default_llm",
    "default_model_name",
    "env_float",
    "env_int",
    "load_dotenv_file",
]

DEFAULT_MODEL = "gpt-4o-mini"
MODEL_ENVS = ("CREWGRAPH_MODEL", "MODEL", "MODEL_NAME", "OPENAI_MODEL_NAME")
"""Variables naming the default model, first set wins."""
DEFAULT_BASE_URL_ENVS = ("BASE_URL", "API_BASE")
"""Variables naming the default model's server (CrewAI's ``create_llm`` reads them)."""


def default_model_name() -> str:
    """The default model's name from the environment (see the module docstring)."""
    for name in MODEL_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return DEFAULT_MODEL


def default_base_url() -> str | None:
    for name in DEFAULT_BASE_URL_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def default_llm() -> LLM:
    """``LLM`` for the default model, on ``$BASE_URL``/``$API_BASE`` when one of them is set."""
    from crewgraph.llm.openai_llm import LLM

    return LLM(model=default_model_name(), base_url=default_base_url())


def env_float(name: str, default: float | None, *, minimum: float = 0.0) -> float | None:
    """A number of seconds from ``$name``; ``default`` when unset; a clear error when malformed."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigurationError(f"environment variable {name}={raw!r} is not a number") from None
    if value <= minimum:
        raise ConfigurationError(f"environment variable {name}={raw!r} must be greater than {minimum:g}")
    return value


def env_int(name: str, default: int | None, *, minimum: int = 0) -> int | None:
    """A whole number from ``$name`` (at least ``minimum``); ``default`` when unset."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"environment variable {name}={raw!r} is not a whole number") from None
    if value < minimum:
        raise ConfigurationError(f"environment variable {name}={raw!r} must be at least {minimum}")
    return value


def load_dotenv_file(folder: str | Path) -> Path | None:
    """Load ``folder/.env`` into the environment (existing variables win); the file, if any.

    A malformed line is reported by python-dotenv as a warning and skipped,
    as ``crewai run`` does.
    """
    path = Path(folder) / ".env"
    if not path.is_file():
        return None
    from dotenv import load_dotenv

    load_dotenv(path, override=False)
    return path
