"""CrewAI's ``RuntimeState``: the snapshot a checkpoint holds, written through a provider.

``RuntimeState(root=[crew_or_flow_or_agent, ...])`` serializes (``model_dump_json``) to
CrewAI's document: ``crewai_version``, ``parent_id``, ``branch``, ``entities`` (one
record per entity, discriminated by ``entity_type``) and ``event_record``. crewgraph
adds a ``crewgraph`` section naming the run in its checkpoint store the
checkpoint stands for (``store``, ``run_id``, ``completed``), because the run's
outputs are recorded there once, not copied into every checkpoint.

``checkpoint(location)`` writes one through the provider and chains the lineage
(the next write's ``parent_id`` is this one's id); ``fork(branch)`` moves later
writes to a new branch; ``from_checkpoint(config)`` reads one back. A restored
state's ``root`` holds the entity *records* (dicts): crewgraph rebuilds a
running entity from its store, through ``Crew.from_checkpoint(config)``,
``Flow.from_checkpoint(config)`` or ``Agent.from_checkpoint(config)``.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import PrivateAttr, RootModel, model_serializer, model_validator

from crewgraph.state.provider import BaseProvider, JsonProvider, detect_provider

__all__ = ["CREWAI_VERSION", "RuntimeState", "entity_record"]

CREWAI_VERSION = "1.15.30"
"""The CrewAI checkpoint format crewgraph writes (the version its API follows)."""


def entity_record(entity: Any) -> dict[str, Any]:
    """A JSON-ready record of a crew, flow or agent (a record given as a dict stays as it is)."""
    if isinstance(entity, dict):
        return dict(entity)
    kind = getattr(entity, "entity_type", None)
    if kind is None:
        kind = "crew" if hasattr(entity, "tasks") else "agent" if hasattr(entity, "role") else "flow"
    cls = type(entity)
    record: dict[str, Any] = {"entity_type": kind, "class": f"{cls.__module__}:{cls.__qualname__}"}
    if kind == "crew":
        record.update(name=getattr(entity, "name", None), id=str(getattr(entity, "id", "")),
                      agents=[getattr(a, "role", None) for a in getattr(entity, "agents", [])],
                      tasks=[getattr(t, "name", None) or getattr(t, "description", None)
                             for t in getattr(entity, "tasks", [])],
                      agent_records=[_agent_data(a) for a in getattr(entity, "agents", [])])
    elif kind == "agent":
        record["agent"] = _agent_data(entity)
    else:
        state = getattr(entity, "state", None)
        dump = getattr(state, "model_dump", None)
        record.update(name=getattr(entity, "flow_name", None), id=getattr(entity, "flow_id", None),
                      state=_json_ready(dump(mode="json") if callable(dump) else dict(state or {})),
                      method_outputs=_json_ready(list(getattr(entity, "method_outputs", []) or [])))
    return record


def _agent_data(agent: Any) -> dict[str, Any]:
    """An agent's definition as JSON data (its model as the model name it was given)."""
    import warnings

    dump = getattr(agent, "model_dump", None)
    if not callable(dump):
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # objects that are not JSON data are named, not kept
        data: dict[str, Any] = _json_ready(dump(mode="json", exclude_none=True, exclude={"checkpoint"}))
    for key in ("llm", "function_calling_llm"):
        model = getattr(agent, key, None)
        name = getattr(model, "requested_model", None) or getattr(model, "model", None)
        if isinstance(name, str):
            data[key] = name
        elif not isinstance(model, str):
            data.pop(key, None)
    return data


def _json_ready(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, default=str))


class RuntimeState(RootModel[list[Any]]):
    """The entities of a run, as one checkpoint (CrewAI's ``crewai.state.runtime.RuntimeState``)."""

    root: list[Any]
    _provider: BaseProvider = PrivateAttr(default_factory=JsonProvider)
    _event_record: dict[str, Any] = PrivateAttr(default_factory=lambda: {"nodes": {}})
    _checkpoint_id: str | None = PrivateAttr(default=None)
    _parent_id: str | None = PrivateAttr(default=None)
    _branch: str = PrivateAttr(default="main")
    _crewgraph: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def event_record(self) -> dict[str, Any]:
        """What happened up to this checkpoint: ``{"nodes": {event id: event}}`` (CrewAI's
        ``EventRecord`` shape; crewgraph records the triggering events of its checkpoints)."""
        return self._event_record

    @property
    def run(self) -> dict[str, Any]:
        """crewgraph's part: the ``store`` file and ``run_id`` this checkpoint stands for."""
        return self._crewgraph

    @property
    def branch(self) -> str:
        return self._branch

    @property
    def parent_id(self) -> str | None:
        return self._parent_id

    @model_serializer(mode="plain")
    def _serialize(self) -> dict[str, Any]:
        return {
            "crewai_version": CREWAI_VERSION,
            "parent_id": self._parent_id,
            "branch": self._branch,
            "entities": [entity_record(e) for e in self.root],
            "event_record": self._event_record,
            "crewgraph": self._crewgraph,
        }

    @model_validator(mode="wrap")
    @classmethod
    def _deserialize(cls, data: Any, handler: Any) -> RuntimeState:
        if isinstance(data, dict) and "entities" in data:
            state: RuntimeState = handler(list(data["entities"]))
            state._event_record = dict(data.get("event_record") or {"nodes": {}})
            state._parent_id = data.get("parent_id")
            state._branch = data.get("branch") or "main"
            state._crewgraph = dict(data.get("crewgraph") or {})
            return state
        result: RuntimeState = handler(data)
        return result

    def checkpoint(self, location: str) -> str:
        """Write this state as a checkpoint at ``location`` (a directory for JsonProvider, a
        database file for SqliteProvider); the new checkpoint's location."""
        written = self._provider.checkpoint(self.model_dump_json(), location, parent_id=self._parent_id,
                                            branch=self._branch)
        self._chain(written)
        return written

    async def acheckpoint(self, location: str) -> str:
        written = await self._provider.acheckpoint(self.model_dump_json(), location, parent_id=self._parent_id,
                                                   branch=self._branch)
        self._chain(written)
        return written

    def _chain(self, written: str) -> None:
        self._checkpoint_id = self._provider.extract_id(written)
        self._parent_id = self._checkpoint_id

    def fork(self, branch: str | None = None) -> None:
        """Write later checkpoints on a new branch (a unique name when none is given)."""
        if branch:
            self._branch = branch
        elif self._checkpoint_id:
            self._branch = f"fork/{self._checkpoint_id}_{uuid.uuid4().hex[:6]}"
        else:
            self._branch = f"fork/{uuid.uuid4().hex[:8]}"

    @classmethod
    def from_checkpoint(cls, config: Any, **kwargs: Any) -> RuntimeState:
        """The state in the checkpoint ``config.restore_from`` names (a JSON file, or
        ``<database>#<id>``); ``kwargs`` go to ``model_validate_json``."""
        location = _location(config)
        provider = detect_provider(location)
        return cls._restored(provider, location, provider.from_checkpoint(location), kwargs)

    @classmethod
    async def afrom_checkpoint(cls, config: Any, **kwargs: Any) -> RuntimeState:
        location = _location(config)
        provider = detect_provider(location)
        return cls._restored(provider, location, await provider.afrom_checkpoint(location), kwargs)

    @classmethod
    def _restored(cls, provider: BaseProvider, location: str, raw: str, kwargs: dict[str, Any]) -> RuntimeState:
        state = cls.model_validate_json(raw, **kwargs)
        state._provider = provider
        state._checkpoint_id = state._parent_id = provider.extract_id(location)
        return state


def _location(config: Any) -> str:
    restore = getattr(config, "restore_from", None)
    if restore is None:
        raise ValueError("CheckpointConfig.restore_from must be set (a checkpoint file, or '<database>#<id>')")
    return str(restore)
