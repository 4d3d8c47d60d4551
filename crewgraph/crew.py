"""Crew: the facade users build (agents + tasks + process) and kick off.

A Crew is a definition. ``compile()`` turns it into an ExecutionGraph
(validating it before any token is spent); ``kickoff()`` compiles and runs
that graph on the scheduler, then assembles a CrewOutput. The run mechanics
live in ``crewgraph._crew_run``, so this module stays the API surface.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import (
    UUID4,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from crewgraph.outputs import CrewOutput, UsageMetrics
from crewgraph.spec._unsupported import reject_unsupported
from crewgraph.spec._validators import check_llm, check_policy
from crewgraph.spec.agent import Agent
from crewgraph.spec.process import Process
from crewgraph.spec.task import Task

if TYPE_CHECKING:
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.streaming import CrewStreamingOutput

__all__ = ["Crew"]


class Crew(BaseModel):
    """A team of agents working through tasks. Field names follow CrewAI."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", defer_build=True)

    id: UUID4 = Field(default_factory=uuid.uuid4, frozen=True)
    name: str | None = "crew"
    agents: list[Agent] = Field(default_factory=list)
    tasks: list[Task] = Field(default_factory=list)
    process: Process = Process.sequential
    verbose: bool = False
    llm: Any = Field(default=None, description="Default model for agents that set none")
    manager_llm: Any = None
    manager_agent: Agent | None = None
    planning: bool = False
    planning_llm: Any = None
    memory: Any = Field(default=False, description="bool, Memory, MemoryScope or MemorySlice")
    embedder: Any = None
    cache: bool = Field(default=False, description="Cache tools' results (the seed's default: off)")
    max_rpm: int | None = Field(default=None, ge=1)
    max_concurrency: int = Field(default=64, ge=1)
    stream: bool = Field(
        default=False, description="kickoff returns a CrewStreamingOutput of chunks as the agents work"
    )
    step_callback: Callable[..., Any] | None = None
    task_callback: Callable[..., Any] | None = None
    before_kickoff_callbacks: list[Callable[..., Any]] = Field(default_factory=list)
    after_kickoff_callbacks: list[Callable[..., Any]] = Field(default_factory=list)
    tool_failure_policy: Any = None
    checkpoint: Any = None
    cassette: Any = Field(
        default=None, description="Record/replay every LLM call of a run: a path or CassetteConfig"
    )
    input_provider: Callable[[str], str] | None = Field(
        default=None, description="Asks a human for feedback on human_input tasks (default: stdin)"
    )
    output_log_file: bool | str | None = None

    usage_metrics: UsageMetrics | None = None
    _memory: Any = PrivateAttr(default=None)
    _last_run: Any = PrivateAttr(default=None)
    _factory_ref: str | None = PrivateAttr(default=None)
    """``module:attr`` that rebuilds this crew, stored in checkpoints for ``from_checkpoint``."""

    @model_validator(mode="before")
    @classmethod
    def _unsupported_fields(cls, data: Any) -> Any:
        """CrewAI fields crewgraph does not implement (``chat_llm``...) fail naming themselves."""
        return reject_unsupported(data, "Crew", cls.model_fields)

    _validate_llms = field_validator("llm", "manager_llm", "planning_llm", mode="before")(
        classmethod(lambda cls, v: check_llm(v))
    )

    _validate_policy = field_validator("tool_failure_policy", mode="before")(
        classmethod(lambda cls, v: check_policy(v))
    )

    @model_validator(mode="after")
    def _collect_agents(self) -> Crew:
        """Agents referenced by tasks join the crew, as in CrewAI."""
        known = {a.id for a in self.agents}
        for task in self.tasks:
            if task.agent is not None and task.agent.id not in known:
                self.agents.append(task.agent)
                known.add(task.agent.id)
        return self

    # ------------------------------------------------------------------ plan
    @property
    def memory_enabled(self) -> bool:
        return self.memory is not False and self.memory is not None

    def compile(self, inputs: dict[str, Any] | None = None) -> ExecutionGraph:
        """Validate the crew and return its plan. With ``inputs``, also check placeholders."""
        from crewgraph.compiler import compile_crew

        graph = compile_crew(self, inputs)
        if self.planning:
            from crewgraph.compiler.planning import add_planning

            add_planning(graph, self)
        return graph

    def plot(self, path: str | Path = "crew.svg", format: str | None = None) -> Path:
        """Render the plan to ``path`` (svg, png, pdf... from the suffix) with Graphviz."""
        return self.compile().render(path, format=format)

    # ------------------------------------------------------------------ run
    def kickoff(
        self, inputs: dict[str, Any] | None = None, from_checkpoint: Any = None
    ) -> CrewOutput | CrewStreamingOutput:
        """Run the crew and return its output. Blocks; see :meth:`kickoff_async`.

        With ``stream=True`` it returns a :class:`~crewgraph.streaming.CrewStreamingOutput`
        at once: iterating it runs the crew and yields chunks; then read ``.result``.
        """
        if self.stream:
            from crewgraph.streaming.output import stream_kickoff

            return stream_kickoff(self, [inputs], from_checkpoint=from_checkpoint, on_loop=False)
        return self._run_sync(inputs, from_checkpoint)

    async def kickoff_async(
        self, inputs: dict[str, Any] | None = None, from_checkpoint: Any = None
    ) -> CrewOutput | CrewStreamingOutput:
        """Run the crew on the current event loop (with ``stream=True``: a stream for ``async for``)."""
        if self.stream:
            from crewgraph.streaming.output import stream_kickoff

            return stream_kickoff(self, [inputs], from_checkpoint=from_checkpoint, on_loop=True)
        from crewgraph._crew_run import kickoff_crew

        return await kickoff_crew(self, inputs, from_checkpoint=from_checkpoint)

    def kickoff_for_each(self, inputs: list[dict[str, Any]]) -> list[CrewOutput] | list[CrewStreamingOutput]:
        """Run the crew once per inputs dict, one after the other.

        With ``stream=True``: one stream per inputs dict; each run starts when its stream is iterated.
        """
        if self.stream:
            from crewgraph.streaming.output import stream_kickoff

            return [stream_kickoff(self, [i], on_loop=False) for i in inputs]
        return [self._run_sync(i, None) for i in inputs]

    async def kickoff_for_each_async(
        self, inputs: list[dict[str, Any]]
    ) -> list[CrewOutput] | CrewStreamingOutput:
        """Run the crew once per inputs dict, concurrently.

        With ``stream=True``: one stream merging the chunks of every run as they arrive
        (``chunk.run_id`` tells them apart); ``.results`` then holds the outputs in input order.
        """
        import asyncio

        if self.stream:
            from crewgraph.streaming.output import stream_kickoff

            return stream_kickoff(self, list(inputs), on_loop=True)
        from crewgraph._crew_run import kickoff_crew

        return list(await asyncio.gather(*(kickoff_crew(self, i) for i in inputs)))

    def _run_sync(self, inputs: dict[str, Any] | None, from_checkpoint: Any) -> CrewOutput:
        from crewgraph._crew_run import kickoff_crew
        from crewgraph._internal.sync import run_sync

        return run_sync(kickoff_crew(self, inputs, from_checkpoint=from_checkpoint))

    # ------------------------------------------------------------------ checkpoints
    @classmethod
    def from_checkpoint(cls, config: Any, *, factory: Any = None) -> Crew:
        """A crew that resumes run ``config.run_id`` on ``kickoff()``. Checkpoints hold outputs,
        not crews: the crew is rebuilt by ``factory`` (a Crew, a callable or ``"module:attr"``)
        or the factory the run recorded. Usually simpler: ``crew.kickoff(from_checkpoint=run_id)``."""
        from crewgraph.checkpoint.setup import crew_from_checkpoint

        return crew_from_checkpoint(cls, config, factory=factory)

    @classmethod
    def fork(cls, config: Any, branch: str | None = None, *, factory: Any = None) -> Crew:
        """Copy run ``config.run_id``'s finished outputs to a new run (label ``branch``) and
        return a crew that resumes the fork; the original run stays as it was."""
        from crewgraph.checkpoint.setup import fork_crew

        return fork_crew(cls, config, branch, factory=factory)

    def list_checkpoints(self, path: str | Path | None = None) -> list[Any]:
        """This crew's checkpointed runs (``CheckpointInfo``), newest first."""
        from crewgraph.checkpoint.setup import crew_checkpoints

        return crew_checkpoints(self, path)

    def delete_checkpoint(self, run_id: str, path: str | Path | None = None) -> None:
        """Delete one checkpointed run of this crew's store."""
        from crewgraph.checkpoint.api import delete_checkpoint
        from crewgraph.checkpoint.setup import crew_store_path

        delete_checkpoint(run_id, crew_store_path(self, path))

    # ------------------------------------------------------------------ memory
    def get_memory(self) -> Any:
        """The crew's Memory (built on first use when ``memory=True``), or None."""
        if not self.memory_enabled:
            return None
        if self.memory is True:
            if self._memory is None:
                from crewgraph.memory import Memory

                self._memory = Memory(embedder=self.embedder) if self.embedder is not None else Memory()
            return self._memory
        return self.memory

    def reset_memories(self, command_type: str = "memory") -> None:
        """Reset the crew's unified memory (``command_type`` "memory" or "all")."""
        if command_type not in ("memory", "all"):
            raise ValueError(f"unknown command_type {command_type!r}; use 'memory' or 'all'")
        memory = self.get_memory()
        if memory is None:
            raise ValueError("this crew has no memory to reset (set memory=True or pass a Memory)")
        memory.reset()

    def __repr__(self) -> str:
        return f"Crew(name={self.name!r}, process={self.process.value}, agents={len(self.agents)}, tasks={len(self.tasks)})"
