"""The root of every typed event published on the event bus."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BaseEvent"]


def _now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return str(uuid.uuid4())


_OBJECT_FIELDS = ("from_task", "from_agent", "agent", "task", "crew")
"""Fields that may hold live objects (an Agent, a Task, a Crew): JSON gets a small reference."""


class BaseEvent(BaseModel):
    """A typed event. ``type`` is CrewAI's stable string name of the event (for logs, JSON
    export and CrewAI's checkpoint ``on_events``); ``event_type`` is the same on the class.

    ``run_id`` ties the event to one kickoff (a flow's run id is shared by the
    crews it kicks off); ``node_id``/``node_kind`` are set when a graph node
    emitted it.

    CrewAI's event fields: ``event_id`` (unique); ``emission_sequence`` and
    ``previous_event_id`` (the bus stamps them: the order events were emitted in, across
    the process); ``source_fingerprint``/``fingerprint_metadata`` (the bus copies them from a
    source that has a ``fingerprint``, an agent, task or crew); ``task_id``/``task_name``/
    ``agent_id``/``agent_role`` where an event belongs to one (``from_task``/``from_agent``
    fill them, as CrewAI's); ``parent_event_id`` (the enclosing started event),
    ``started_event_id`` (on an ending event: its started event) -- see
    :mod:`crewgraph.events._lineage`. ``triggered_by_event_id`` is not tracked (None).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    event_type: ClassVar[str] = "event"
    family_source_type: ClassVar[str | None] = None
    """The ``source_type`` a family's events carry when the emitter gives none (memory, mcp...)."""
    type: str = "event"
    timestamp: datetime = Field(default_factory=_now)
    run_id: str | None = None
    node_id: str | None = None
    node_kind: str | None = None
    source_type: str | None = None
    event_id: str = Field(default_factory=_new_id)
    emission_sequence: int | None = None
    previous_event_id: str | None = None
    source_fingerprint: str | None = None
    fingerprint_metadata: dict[str, Any] | None = None
    task_id: str | None = None
    task_name: str | None = None
    agent_id: str | None = None
    agent_role: str | None = None
    parent_event_id: str | None = None
    started_event_id: str | None = None
    triggered_by_event_id: str | None = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.event_type = str(cls.model_fields["type"].default)

    def model_post_init(self, context: Any, /) -> None:
        # CrewAI's from_task / from_agent: the ids and names of the task and agent an
        # event belongs to, read off the objects when the emitter passes them.
        values = self.__dict__
        if values["source_type"] is None and self.family_source_type is not None:
            values["source_type"] = self.family_source_type
        task = values.get("from_task")
        if task is not None:
            self._adopt_task(task)
            agent = getattr(task, "agent", None)
            if agent is not None:
                self._adopt_agent(agent)
        agent = values.get("from_agent")
        if agent is not None:
            self._adopt_agent(agent)

    def _adopt_task(self, task: Any) -> None:
        if self.task_id is None and getattr(task, "id", None) is not None:
            self.task_id = str(task.id)
        if self.task_name is None:
            self.task_name = getattr(task, "name", None) or getattr(task, "description", None)

    def _adopt_agent(self, agent: Any) -> None:
        if self.agent_id is None and getattr(agent, "id", None) is not None:
            self.agent_id = str(agent.id)
        if self.agent_role is None:
            self.agent_role = getattr(agent, "role", None)

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the event, with its ``type`` (live objects as small references)."""
        present = [f for f in _OBJECT_FIELDS if f in self.__dict__]
        data = self.model_dump(mode="json", exclude_none=True, fallback=str, exclude=set(present))
        for name in present:
            ref = _reference(self.__dict__[name])
            if ref is not None:
                data[name] = ref
        data["type"] = self.type
        return data

    def to_json(self, exclude: set[str] | None = None) -> Any:
        """CrewAI's ``to_json``: the event as JSON-serializable data, without the ``exclude`` keys."""
        data = self.to_json_dict()
        for key in exclude or ():
            data.pop(key, None)
        return json.loads(json.dumps(data, default=str))


def _reference(value: Any) -> Any:
    """An agent/task/crew object as ``{"id", "role"|"name"}``; a plain value as it is."""
    if value is None or isinstance(value, str | int | float | bool | dict | list):
        return value
    ref: dict[str, Any] = {}
    if getattr(value, "id", None) is not None:
        ref["id"] = str(value.id)
    for attr in ("role", "name"):
        got = getattr(value, attr, None)
        if isinstance(got, str) and got:
            ref[attr] = got
    return ref or str(value)
