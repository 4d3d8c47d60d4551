"""``SecurityConfig``: the security settings a component carries -- today its fingerprint.

Every ``Agent``, ``Task`` and ``Crew`` has ``security_config`` (a new fingerprint each unless
given). ``fingerprint`` may be given as a ``Fingerprint``, a seed string (a deterministic
fingerprint) or the dict ``Fingerprint.to_dict`` writes.
"""

# No `from __future__ import annotations`: pydantic would compile and eval each string annotation
# at class creation, on the import path of `from crewgraph import Agent` (issue 18's budget).

from typing import Annotated, Any, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from crewgraph.security.fingerprint import Fingerprint

__all__ = ["SecurityConfig", "SecurityConfigField"]


class SecurityConfig(BaseModel):
    """Security settings of an agent, task or crew: ``fingerprint``."""

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    fingerprint: Fingerprint = Field(default_factory=Fingerprint, description="The component's identity")

    @field_validator("fingerprint", mode="before")
    @classmethod
    def _fingerprint(cls, value: Any) -> Any:
        if value is None:
            return Fingerprint()
        if isinstance(value, str):
            return Fingerprint.generate(seed=value)
        if isinstance(value, dict):
            return Fingerprint.from_dict(value)
        if isinstance(value, Fingerprint):
            return value
        raise ValueError(f"fingerprint must be a Fingerprint, a seed string or a dict, not {type(value).__name__}")

    def to_dict(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        return cls(fingerprint=Fingerprint.from_dict(data.get("fingerprint") or {}))


SecurityConfigField = Annotated[
    SecurityConfig, BeforeValidator(lambda value: SecurityConfig() if value is None else value)
]
"""The ``security_config`` field of agents, tasks and crews: ``None`` means a new config, as unset."""
