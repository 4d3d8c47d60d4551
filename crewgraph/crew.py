"""Crew: the facade users build (agents + tasks + process) and kick off.

A Crew is a :class:`~crewgraph.spec.crew.CrewSpec` (the definition, validated
when it is built) plus the methods that use it. ``compile()`` turns it into
an ExecutionGraph; every ``kickoff`` form hands it to the one run path in
``crewgraph.runner`` (see docs/architecture.md, "The path of one kickoff").
This module is only the API surface: each method is a few lines.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, cast, overload

from pydantic import ConfigDict

from crewgraph._internal.facade import facade_getattr
from crewgraph.spec.crew import CrewSpec, check_executor

if TYPE_CHECKING:
    from crewgraph.distributed import BatchRun
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.outputs import CrewOutput
    from crewgraph.streaming import CrewStreamingOutput
    from crewgraph.training.crew_evaluator import CrewTestResult

__all__ = ["Crew"]


class _hybrid:
    """A method callable on the class or an instance: ``fn(cls, instance_or_None, ...)``."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)  # type: ignore[arg-type]

    def __get__(self, obj: Any, owner: type) -> Callable[..., Any]:
        return functools.partial(self.fn, owner, obj)


if TYPE_CHECKING:
    from typing_extensions import TypeVar

    StreamT = TypeVar("StreamT", bound=bool, default=Literal[False])

    class _StreamFlag(Generic[StreamT]):
        """What type checkers see: a Crew is generic in the type of its ``stream`` field."""

else:
    from typing import TypeVar

    StreamT = TypeVar("StreamT", bound=bool)

    class _StreamFlag:
        """At run time nothing: ``Crew`` is a plain (non-generic) pydantic model."""

        def __class_getitem__(cls, item: Any) -> Any:
            return cls


class Crew(CrewSpec, _StreamFlag[StreamT]):
    """A team of agents working through tasks. Field names follow CrewAI.

    For type checkers a Crew is ``Crew[Literal[False]]`` unless it is built with
    ``stream=True`` (``Crew[Literal[True]]``) or a ``stream`` whose value is not known
    statically (``Crew[bool]``), so ``Crew(...).kickoff().raw`` type-checks when the crew
    does not stream; see "Typing" in docs/porting.md.
    """

    if TYPE_CHECKING:
        stream: StreamT = False  # type: ignore[assignment]

        @overload
        def __init__(self: Crew[Literal[False]], *, stream: Literal[False] = False, **data: Any) -> None: ...
        @overload
        def __init__(self: Crew[Literal[True]], *, stream: Literal[True], **data: Any) -> None: ...
        @overload
        def __init__(self: Crew[bool], *, stream: bool, **data: Any) -> None: ...
        def __init__(self, **data: Any) -> None: ...
    else:

        def __class_getitem__(cls, item: Any) -> Any:
            """``Crew[Literal[False]]`` in an annotation evaluated at run time is ``Crew``."""
            return cls

    model_config = ConfigDict(ignored_types=(_hybrid,))

    # ------------------------------------------------------------------ plan
    def compile(self, inputs: dict[str, Any] | None = None) -> ExecutionGraph:
        """Validate the crew and return its plan. With ``inputs``, also check placeholders."""
        from crewgraph.runner.plan import compile_plan

        return compile_plan(self, inputs)

    def plot(self, path: str | Path = "crew.svg", format: str | None = None) -> Path:
        """Render the plan to ``path`` (svg, png, pdf... from the suffix) with Graphviz."""
        return self.compile().render(path, format=format)

    # ------------------------------------------------------------------ run
    @overload
    def kickoff(
        self: Crew[Literal[False]], inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput: ...
    @overload
    def kickoff(
        self: Crew[Literal[True]], inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewStreamingOutput: ...
    @overload
    def kickoff(
        self: Crew[bool], inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput | CrewStreamingOutput: ...
    def kickoff(
        self, inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput | CrewStreamingOutput:
        """Run the crew and return its output. Blocks; see :meth:`kickoff_async`.

        With ``stream=True`` it returns a :class:`~crewgraph.streaming.CrewStreamingOutput`
        at once: iterating it runs the crew and yields chunks; then read ``.result``.
        ``input_files`` (name -> path or image URL) go to every task, as CrewAI's do.
        ``executor`` (this kickoff's; else ``Crew(executor=...)``) runs the node steps
        elsewhere, e.g. ``crewgraph.distributed.RayExecutor(address="auto")``.
        ``run_key`` (keyword only) is the caller's name for the run: re-issued after a crash it
        resumes the unfinished run or returns the finished one's output, re-running nothing.
        """
        from_checkpoint = _keyed(from_checkpoint, run_key, self.checkpoint)
        if executor is not None:
            check_executor(executor)
        if input_files:
            from crewgraph._internal.sync import run_sync

            return run_sync(self._run_with_files(inputs, from_checkpoint, input_files, executor))
        if self.stream:
            from crewgraph.runner.stream import stream_crew

            crew = self if executor is None else self.model_copy(update={"executor": executor})
            return stream_crew(crew, [inputs], from_checkpoint=from_checkpoint, on_loop=False)
        return self._run_sync(inputs, from_checkpoint, executor)

    @overload
    async def kickoff_async(
        self: Crew[Literal[False]], inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput: ...
    @overload
    async def kickoff_async(
        self: Crew[Literal[True]], inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewStreamingOutput: ...
    @overload
    async def kickoff_async(
        self: Crew[bool], inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput | CrewStreamingOutput: ...
    async def kickoff_async(
        self, inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput | CrewStreamingOutput:
        """Run the crew on the current event loop (with ``stream=True``: a stream for ``async for``).

        As in CrewAI it goes through :meth:`kickoff` (in a worker thread) when a subclass or a
        patch replaces ``kickoff``, and through :meth:`akickoff` when that is what is replaced."""
        from_checkpoint = _keyed(from_checkpoint, run_key, self.checkpoint)
        if _replaced(self, "kickoff"):
            import asyncio

            return await asyncio.to_thread(cast(Any, self).kickoff, inputs, input_files, from_checkpoint,
                                           **_opt(executor=executor))
        if _replaced(self, "akickoff"):
            return await cast(Any, self).akickoff(inputs, input_files, from_checkpoint, **_opt(executor=executor))
        return await self._kickoff_on_loop(inputs, from_checkpoint, input_files, executor)

    async def akickoff(
        self, inputs: dict[str, Any] | None = None, input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None, *, executor: Any = None, run_key: str | None = None,
    ) -> CrewOutput | CrewStreamingOutput:
        """CrewAI's native async kickoff: :meth:`kickoff_async` (a replaced ``kickoff`` runs in a thread)."""
        from_checkpoint = _keyed(from_checkpoint, run_key, self.checkpoint)
        if _replaced(self, "kickoff"):
            import asyncio

            return await asyncio.to_thread(cast(Any, self).kickoff, inputs, input_files, from_checkpoint,
                                           **_opt(executor=executor))
        return await self._kickoff_on_loop(inputs, from_checkpoint, input_files, executor)

    async def _kickoff_on_loop(
        self, inputs: dict[str, Any] | None, from_checkpoint: Any, input_files: dict[str, Any] | None,
        executor: Any,
    ) -> CrewOutput | CrewStreamingOutput:
        if executor is not None:
            check_executor(executor)
        if input_files:
            return await self._run_with_files(inputs, from_checkpoint, input_files, executor)
        if self.stream:
            from crewgraph.runner.stream import stream_crew

            crew = self if executor is None else self.model_copy(update={"executor": executor})
            return stream_crew(crew, [inputs], from_checkpoint=from_checkpoint, on_loop=True)
        from crewgraph.runner import run_crew

        return await run_crew(self, inputs, from_checkpoint=from_checkpoint, executor=executor)

    def kickoff_for_each(
        self, inputs: list[dict[str, Any]], input_files: dict[str, Any] | None = None, *, executor: Any = None,
        max_concurrency: int | None = None, from_checkpoint: Any = None, run_key: str | None = None,
    ) -> list[CrewOutput] | list[CrewStreamingOutput]:
        """Run the crew once per inputs dict and return the outputs in input order.

        One after the other by default (as CrewAI); ``max_concurrency=N`` overlaps N runs;
        ``executor=RayExecutor(...)`` runs each input on a Ray worker. A failed input does
        not stop the others: a :class:`~crewgraph.errors.BatchError` at the end names the
        failed inputs and holds the other outputs. With checkpointing on the batch is
        recorded and ``from_checkpoint=batch_id`` (or True) re-runs only unfinished inputs.
        See docs/distributed.md, "Batches". With ``stream=True``: one lazy stream per inputs dict.
        ``run_key`` names the batch as ``kickoff(run_key=...)`` names a run.
        """
        from_checkpoint = _keyed(from_checkpoint, run_key, self.checkpoint)
        if _replaced(self, "kickoff") or input_files:  # CrewAI's loop: a fresh copy of the crew per input
            why = "with kickoff replaced" if _replaced(self, "kickoff") else "with input_files"
            _no_batch_options("kickoff_for_each", executor, max_concurrency, from_checkpoint, why)
            return [cast(Any, self.copy()).kickoff(inputs=i, **_opt(input_files=input_files))
                    for i in check_batch_inputs(inputs)]
        if self.stream:
            from crewgraph.runner.stream import stream_crew

            _no_batch_options("kickoff_for_each", executor, max_concurrency, from_checkpoint)
            return [stream_crew(self, [i], on_loop=False) for i in inputs]
        from crewgraph.runner.batch_forms import for_each_sync

        return for_each_sync(self, inputs, executor=executor, max_concurrency=max_concurrency,
                             from_checkpoint=from_checkpoint)

    def kickoff_for_each_iter(
        self, inputs: list[dict[str, Any]], *, executor: Any = None, max_concurrency: int | None = None,
        from_checkpoint: Any = None, run_key: str | None = None,
    ) -> BatchRun:
        """The batch of :meth:`kickoff_for_each` as a :class:`~crewgraph.distributed.BatchRun`:
        iterate it (``for`` or ``async for``) to get each input's ``BatchResult`` as soon as it
        finishes (up to 64 runs at once here unless ``max_concurrency`` says otherwise)."""
        from_checkpoint = _keyed(from_checkpoint, run_key, self.checkpoint)
        if self.stream:
            raise ValueError("kickoff_for_each_iter is not supported with stream=True; use "
                             "kickoff_for_each_async for one merged stream of chunks")
        from crewgraph.runner.batch_forms import for_each_iter

        return for_each_iter(self, inputs, executor=executor, max_concurrency=max_concurrency,
                             from_checkpoint=from_checkpoint)

    async def kickoff_for_each_async(
        self, inputs: list[dict[str, Any]], input_files: dict[str, Any] | None = None, *, executor: Any = None,
        max_concurrency: int | None = None, from_checkpoint: Any = None, run_key: str | None = None,
    ) -> list[CrewOutput] | CrewStreamingOutput:
        """Run the crew once per inputs dict, concurrently (up to 64 at once unless
        ``max_concurrency`` says otherwise); outputs in input order. Options as :meth:`kickoff_for_each`.

        With ``stream=True``: one stream merging the chunks of every run as they arrive
        (``chunk.run_id`` tells them apart); ``.results`` then holds the outputs in input order.
        """
        from_checkpoint = _keyed(from_checkpoint, run_key, self.checkpoint)
        if any(_replaced(self, name) for name in ("kickoff", "kickoff_async", "akickoff")) or input_files:
            import asyncio

            why = "with input_files" if input_files else "with kickoff replaced"
            _no_batch_options("kickoff_for_each_async", executor, max_concurrency, from_checkpoint, why)
            runs = [cast(Any, self.copy()).kickoff_async(inputs=i, **_opt(input_files=input_files))
                    for i in check_batch_inputs(inputs)]
            return list(await asyncio.gather(*runs))
        if self.stream:
            from crewgraph.runner.stream import stream_crew

            _no_batch_options("kickoff_for_each_async", executor, max_concurrency, from_checkpoint)
            return stream_crew(self, list(inputs), on_loop=True)
        from crewgraph.runner.batch_forms import for_each_async

        return await for_each_async(self, inputs, executor=executor, max_concurrency=max_concurrency,
                                    from_checkpoint=from_checkpoint)

    async def akickoff_for_each(
        self, inputs: list[dict[str, Any]], input_files: dict[str, Any] | None = None, *, executor: Any = None,
        max_concurrency: int | None = None, from_checkpoint: Any = None, run_key: str | None = None,
    ) -> list[CrewOutput] | CrewStreamingOutput:
        """CrewAI's native async batch: :meth:`kickoff_for_each_async`."""
        return await self.kickoff_for_each_async(inputs, input_files, executor=executor,
                                                 max_concurrency=max_concurrency, from_checkpoint=from_checkpoint,
                                                 run_key=run_key)

    async def _run_with_files(self, inputs: dict[str, Any] | None, from_checkpoint: Any,
                              input_files: dict[str, Any], executor: Any = None) -> CrewOutput:
        """A kickoff whose every task also gets ``input_files`` (see :mod:`crewgraph.runner.input_files`)."""
        if self.stream:
            raise ValueError("kickoff(input_files=...) is not supported with stream=True yet; give the "
                             "files to the tasks (Task(input_files=...)) instead")
        from crewgraph.runner import run_crew
        from crewgraph.runner.input_files import add_run_files, file_inputs, normalize_files

        files = normalize_files(input_files)
        return await run_crew(self, file_inputs(dict(inputs or {}), files), from_checkpoint=from_checkpoint,
                              plan_hook=lambda graph: add_run_files(graph, files), executor=executor)

    def _run_sync(self, inputs: dict[str, Any] | None, from_checkpoint: Any, executor: Any = None) -> CrewOutput:
        from crewgraph._internal.sync import run_sync
        from crewgraph.runner import run_crew

        return run_sync(run_crew(self, inputs, from_checkpoint=from_checkpoint, executor=executor))

    # ------------------------------------------------------------------ checkpoints
    @classmethod
    def from_checkpoint(cls, config: Any, *, factory: Any = None) -> Crew:
        """A crew that resumes run ``config.run_id`` on ``kickoff()``. Checkpoints hold outputs,
        not crews: the crew is rebuilt by ``factory`` (a Crew, a callable or ``"module:attr"``)
        or the factory the run recorded. Usually simpler: ``crew.kickoff(from_checkpoint=run_id)``."""
        from crewgraph.runner.resume import crew_from_checkpoint

        return crew_from_checkpoint(cast("type[Crew]", cls), config, factory=factory)

    @classmethod
    def fork(cls, config: Any, branch: str | None = None, *, factory: Any = None) -> Crew:
        """Copy run ``config.run_id``'s finished outputs to a new run (label ``branch``) and
        return a crew that resumes the fork; the original run stays as it was."""
        from crewgraph.runner.resume import fork_crew

        return fork_crew(cast("type[Crew]", cls), config, branch, factory=factory)

    @_hybrid
    def resume(
        cls: type[Crew], self: Crew | None, run_id: str, answer: Any = None, *,
        factory: Any = None, path: str | Path | None = None,
    ) -> CrewOutput:
        """Continue run ``run_id`` -- paused for a ``human_input`` review (give the ``answer``:
        feedback makes the agent revise, ``""`` accepts its draft; a dict ``{task: answer}``
        when several wait) or interrupted -- in this or any later process, without running a
        completed task or model call again. On an instance the run resumes with that crew; on
        the class (``Crew.resume(...)``) the crew is rebuilt by ``factory`` or the factory the
        run recorded. Returns the crew's output, or a new ``PendingCrewRun`` if it asks again."""
        from crewgraph._internal.sync import run_sync
        from crewgraph.runner.human_pause import resume_crew

        return run_sync(resume_crew(cls, self, run_id, answer, factory=factory, path=path))

    @_hybrid
    async def aresume(
        cls: type[Crew], self: Crew | None, run_id: str, answer: Any = None, *,
        factory: Any = None, path: str | Path | None = None,
    ) -> CrewOutput:
        """:meth:`resume` on the current event loop."""
        from crewgraph.runner.human_pause import resume_crew

        return await resume_crew(cls, self, run_id, answer, factory=factory, path=path)

    def list_checkpoints(self, path: str | Path | None = None) -> list[Any]:
        """This crew's checkpointed runs (``CheckpointInfo``), newest first."""
        from crewgraph.checkpoint.setup import owner_checkpoints

        return owner_checkpoints(self, path)

    def delete_checkpoint(self, run_id: str, path: str | Path | None = None) -> None:
        """Delete one checkpointed run of this crew's store."""
        from crewgraph.checkpoint.api import delete_checkpoint
        from crewgraph.checkpoint.setup import owner_store_path

        delete_checkpoint(run_id, owner_store_path(self, path))

    # ------------------------------------------------------------------ training and evaluation
    def train(self, n_iterations: int, filename: str, inputs: dict[str, Any] | None = None) -> None:
        """Kick off ``n_iterations`` times with a person reviewing every task (through the crew's
        ``input_provider``; the console by default), then save what each agent should do
        differently under its role in ``filename`` (a ``.pkl``). Kickoffs then append those
        suggestions to the prompts of agents with that role, read from
        ``trained_agents_data.pkl`` in the working directory. See docs/training.md."""
        from crewgraph.training.train import train_crew

        train_crew(self, n_iterations, filename, inputs)

    def test(self, n_iterations: int, eval_llm: Any, inputs: dict[str, Any] | None = None) -> CrewTestResult:
        """Kick off ``n_iterations`` times; ``eval_llm`` (a model name or BaseLLM) scores every task
        of every run 1-10. Prints the table of scores and times, and returns them."""
        from crewgraph.training.crew_evaluator import run_crew_test

        return run_crew_test(self, n_iterations, eval_llm, inputs)

    def replay(self, task_id: str, inputs: dict[str, Any] | None = None) -> CrewOutput:
        """Re-run the last kickoff from task ``task_id`` (its id, key, name or position), reusing
        the outputs of the tasks before it: from the checkpoint store when the crew checkpoints
        (in any later process), else from this crew's last kickoff in this process."""
        from crewgraph._internal.sync import run_sync
        from crewgraph.runner.replay import replay_crew

        return run_sync(replay_crew(self, task_id, inputs))

    # ------------------------------------------------------------------ memory
    def reset_memories(self, command_type: str = "memory") -> None:
        """Reset what the crew remembers: ``"memory"`` (the unified memory), ``"knowledge"`` (the
        crew's knowledge index), ``"agent_knowledge"`` (every agent's), or ``"all"`` of them.
        A reset knowledge index is rebuilt from its sources on the next run."""
        from crewgraph.knowledge.reset import reset_crew

        reset_crew(self, command_type)

    # ------------------------------------------------------------------ knowledge
    def query_knowledge(
        self, query: list[str] | str, results_limit: int = 3, score_threshold: float = 0.35
    ) -> list[Any] | None:
        """Search the crew's knowledge (None when it has no ``knowledge_sources``): chunks as dicts
        with ``content``, ``metadata`` and ``score`` (cosine similarity), best first."""
        from crewgraph.knowledge.owners import crew_knowledge

        knowledge = crew_knowledge(self)
        if knowledge is None:
            return None
        return list(knowledge.query(query, results_limit=results_limit, score_threshold=score_threshold))

    async def aquery_knowledge(
        self, query: list[str] | str, results_limit: int = 3, score_threshold: float = 0.35
    ) -> list[Any] | None:
        """:meth:`query_knowledge` without blocking the event loop (the search runs in a worker thread)."""
        import asyncio

        return await asyncio.to_thread(self.query_knowledge, query, results_limit, score_threshold)

    def reset_knowledge(self, knowledges: list[Any]) -> None:
        """Empty each of ``knowledges`` (``Knowledge`` objects), as CrewAI's does; their sources
        are indexed again on next use."""
        from crewgraph.knowledge import Knowledge

        for index, knowledge in enumerate(knowledges):
            if not isinstance(knowledge, Knowledge):
                raise TypeError(f"reset_knowledge: knowledges[{index}] is {type(knowledge).__name__}, "
                                "not a Knowledge")
            knowledge.reset()


def _replaced(crew: Any, name: str) -> bool:
    """Whether ``crew``'s class (a subclass, or a patch of ``Crew``) replaces ``Crew.<name>``."""
    return getattr(type(crew), name) is not _DEFAULTS[name]


def _opt(**options: Any) -> dict[str, Any]:
    """The crewgraph-only keywords that were given (a replaced kickoff may not take them)."""
    return {k: v for k, v in options.items() if v is not None}


def check_batch_inputs(inputs: Any) -> list[dict[str, Any]]:
    from crewgraph.runner.batch import check_inputs

    return check_inputs(inputs)


def _no_batch_options(method: str, executor: Any, max_concurrency: int | None, from_checkpoint: Any,
                      why: str = "with stream=True") -> None:
    """Batches run one kickoff per input (streaming, a replaced kickoff, input_files): the engine's
    batch options are refused, not ignored."""
    given = [n for n, v in (("executor", executor), ("max_concurrency", max_concurrency),
                            ("from_checkpoint", from_checkpoint)) if v is not None]
    if given:
        raise ValueError(f"{method}({', '.join(given)}=...) is not supported {why}; "
                         "leave it out to run a batch with these options")


_DEFAULTS = {name: getattr(Crew, name) for name in ("kickoff", "kickoff_async", "akickoff")}

# CrewAI's other names at this path (``crewai.crew.BaseAgent``), from the path table.
__getattr__ = facade_getattr(__name__)


def _keyed(from_checkpoint: Any, run_key: str | None, own: Any) -> Any:
    """``from_checkpoint`` carrying the kickoff's ``run_key`` (see crewgraph.checkpoint.run_keys);
    without one, the key a command gave every kickoff (``crewgraph run --run-key``)."""
    if run_key is None and from_checkpoint is None:
        from crewgraph._internal.run_context import ambient_run_key

        run_key = ambient_run_key()
    if run_key is None:
        return from_checkpoint
    from crewgraph.checkpoint.setup import keyed_request

    return keyed_request(from_checkpoint, run_key, own)
