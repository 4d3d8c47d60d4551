"""``Fingerprint``: a stable identity for an agent, task or crew (CrewAI's ``crewai.security``).

A fingerprint is a UUID plus a creation time and a little metadata. ``generate(seed=...)``
derives the UUID from the seed (UUID v5 in CrewAI's namespace, so a seeded fingerprint is the
same UUID CrewAI computes for that seed) -- an identity that survives restarts. Unseeded, it
is random. Events carry the fingerprint of their source (``source_fingerprint``) so audit
logs can tell components apart even when roles repeat.
"""

# No `from __future__ import annotations`: pydantic would compile and eval each string annotation
# at class creation, on the import path of `from crewgraph import Agent` (issue 18's budget).

from datetime import datetime
from typing import Annotated, Any, Self
from uuid import UUID, uuid4, uuid5

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr

__all__ = ["FINGERPRINT_NAMESPACE", "Fingerprint"]

FINGERPRINT_NAMESPACE = UUID("f47ac10b-58cc-4372-a567-0e02b2c3d479")
"""The UUID v5 namespace of seeded fingerprints (CrewAI's, so seeds give the same UUIDs)."""

_MAX_METADATA_CHARS = 10_000


def _check_metadata(value: Any) -> dict[str, Any]:
    """String keys, nested one level at most, and small: metadata travels on every event."""
    if not isinstance(value, dict):
        raise ValueError(f"Fingerprint metadata must be a dict, got {type(value).__name__}")
    for key, inner in value.items():
        if not isinstance(key, str):
            raise ValueError(f"Fingerprint metadata keys must be strings, got {type(key).__name__}")
        if isinstance(inner, dict):
            for inner_key, leaf in inner.items():
                if not isinstance(inner_key, str):
                    raise ValueError(f"nested metadata keys must be strings, got {type(inner_key).__name__}")
                if isinstance(leaf, dict):
                    raise ValueError("Fingerprint metadata can be nested one level deep only")
    if len(str(value)) > _MAX_METADATA_CHARS:
        raise ValueError(f"Fingerprint metadata is larger than {_MAX_METADATA_CHARS} characters")
    return value


class Fingerprint(BaseModel):
    """A UUID (``uuid_str``/``uuid``), when it was made (``created_at``) and ``metadata``."""

    model_config = ConfigDict(defer_build=True)  # built on first use: importing agents stays cheap

    _uuid_str: str = PrivateAttr(default_factory=lambda: str(uuid4()))
    _created_at: datetime = PrivateAttr(default_factory=datetime.now)
    metadata: Annotated[dict[str, Any], BeforeValidator(_check_metadata)] = Field(default_factory=dict)

    @property
    def uuid_str(self) -> str:
        return self._uuid_str

    @property
    def uuid(self) -> UUID:
        return UUID(self._uuid_str)

    @property
    def created_at(self) -> datetime:
        return self._created_at

    @classmethod
    def generate(cls, seed: str | None = None, metadata: dict[str, Any] | None = None) -> Self:
        """A new fingerprint; with ``seed``, its UUID is derived from the seed (deterministic)."""
        made = cls(metadata=metadata or {})
        if seed is not None:
            if not seed.strip():
                raise ValueError("a Fingerprint seed must not be empty")
            made._uuid_str = str(uuid5(FINGERPRINT_NAMESPACE, seed))
        return made

    def to_dict(self) -> dict[str, Any]:
        return {"uuid_str": self._uuid_str, "created_at": self._created_at.isoformat(), "metadata": self.metadata}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """The fingerprint ``to_dict`` wrote (an empty dict gives a new one)."""
        if not data:
            return cls()
        made = cls(metadata=data.get("metadata") or {})
        if data.get("uuid_str"):
            made._uuid_str = str(UUID(str(data["uuid_str"])))
        if isinstance(data.get("created_at"), str):
            made._created_at = datetime.fromisoformat(data["created_at"])
        return made

    def __str__(self) -> str:
        return self._uuid_str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fingerprint) and other._uuid_str == self._uuid_str

    def __hash__(self) -> int:
        return hash(self._uuid_str)
