"""``EnvVar``: an environment variable a tool needs, declared on the tool (``BaseTool.env_vars``).

Declaring them lets a CLI or UI tell the user what to set before a run, and lets a tool say
which are optional (``required=False``) and what it falls back to (``default``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["EnvVar"]


class EnvVar(BaseModel):
    """One environment variable: its ``name``, what it is for, and whether the tool needs it."""

    model_config = ConfigDict(defer_build=True)

    name: str
    description: str
    required: bool = True
    default: str | None = None
