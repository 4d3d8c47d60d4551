"""The run part of ``Flow``: ``kickoff`` and its async twins, and CrewAI's checkpoint entry points.

Mixed into :class:`~crewgraph.flow.Flow`. Each call settles *what* to run --
a fresh kickoff, a restored state (``restore_from_state_id``) or a
checkpointed run to continue (``from_checkpoint``) -- in :func:`start_kickoff`,
and hands it to :func:`crewgraph.flow._run.kickoff_flow` (the engine loads on
the first kickoff, not at import).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crewgraph._internal.sync import run_sync
from crewgraph.flow._sentinels import UNSET

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow

__all__ = ["KickoffMixin", "start_kickoff"]


class KickoffMixin:
    """``kickoff``, ``kickoff_async``, ``akickoff``, ``from_checkpoint`` and ``fork``."""

    def kickoff(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
        *,
        max_method_calls: Any = UNSET,
        run_key: str | None = None,
    ) -> Any:
        """Run the flow and return the last method's output. ``inputs`` set state fields
        (``{"id": ...}`` restores a persisted state, as ``restore_from_state_id``);
        ``from_checkpoint=CheckpointConfig(restore_from=...)`` continues a checkpointed run.
        ``run_key`` (a persisted flow) names the run: re-issued, it resumes the unfinished
        run or returns the finished one's output (:mod:`crewgraph.flow._lease`).
        Blocks; see :meth:`kickoff_async`."""
        return run_sync(self.kickoff_async(inputs, input_files, from_checkpoint, restore_from_state_id,
                                           max_method_calls=max_method_calls, run_key=run_key))

    async def kickoff_async(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
        *,
        max_method_calls: Any = UNSET,
        run_key: str | None = None,
    ) -> Any:
        """Run the flow on the current event loop."""
        from crewgraph._internal.run_context import ambient_run_key

        key = run_key if run_key is not None else ambient_run_key()  # `crewgraph run --run-key`
        if key is not None:
            if from_checkpoint is not None or restore_from_state_id is not None:
                from crewgraph.errors import CheckpointError

                raise CheckpointError("give run_key or from_checkpoint/restore_from_state_id, not both: "
                                      "a run key already says which run to resume")
            if input_files:
                raise ValueError("Flow.kickoff(input_files=...) is not supported by crewgraph: put the files "
                                 "(paths or crewgraph file inputs) in the state through inputs=")
            from crewgraph.flow._lease import keyed_kickoff

            limit = self.max_method_calls if max_method_calls is UNSET else max_method_calls  # type: ignore[attr-defined]
            return await keyed_kickoff(self, key, inputs, limit)  # type: ignore[arg-type]
        return await start_kickoff(self, inputs, input_files, from_checkpoint, restore_from_state_id,  # type: ignore[arg-type]
                                   max_method_calls)

    async def akickoff(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
        *,
        max_method_calls: Any = UNSET,
        run_key: str | None = None,
    ) -> Any:
        """CrewAI's name for :meth:`kickoff_async`."""
        return await self.kickoff_async(inputs, input_files, from_checkpoint, restore_from_state_id,
                                        max_method_calls=max_method_calls, run_key=run_key)

    def stream_events(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
    ) -> Any:
        """The run as a stream: iterate the chunks of the models that stream inside it (``for``),
        then read ``.result``; the run starts on the first iteration (see :mod:`crewgraph.flow._stream`)."""
        from crewgraph.flow._stream import stream_flow

        return stream_flow(self, (inputs, input_files, from_checkpoint, restore_from_state_id, UNSET),  # type: ignore[arg-type]
                           on_loop=False)

    def astream(
        self,
        inputs: dict[str, Any] | None = None,
        input_files: dict[str, Any] | None = None,
        from_checkpoint: Any = None,
        restore_from_state_id: str | None = None,
    ) -> Any:
        """:meth:`stream_events` on the caller's event loop: ``async for chunk in flow.astream()``."""
        from crewgraph.flow._stream import stream_flow

        return stream_flow(self, (inputs, input_files, from_checkpoint, restore_from_state_id, UNSET),  # type: ignore[arg-type]
                           on_loop=True)

    def reload(self, execution_data: Any) -> None:
        """CrewAI AMP's reload of a flow from the platform's execution record: not supported."""
        raise NotImplementedError(
            "Flow.reload(execution_data) restores from CrewAI AMP's execution records, which crewgraph does "
            "not have: continue a run with Flow.from_checkpoint(config), Flow.resume(run_id) or "
            "kickoff(inputs={'id': ...})"
        )

    @classmethod
    def from_checkpoint(cls, config: Any, *, definition: Any = None) -> Flow[Any]:
        """A flow bound to continue the checkpointed run ``config.restore_from`` names (a run
        id, a checkpoint file, or a location: the latest unfinished run of this class) on
        :meth:`kickoff`."""
        if definition is not None:
            raise ValueError("Flow.from_checkpoint(definition=...) is not supported; call it on the flow class")
        from crewgraph.flow._checkpoint import restore_run

        flow: Flow[Any] = cls()  # type: ignore[assignment]
        flow._restore_run = restore_run(flow, config)
        return flow

    @classmethod
    def fork(cls, config: Any, branch: str | None = None, *, definition: Any = None) -> Flow[Any]:
        """Copy the run ``config.restore_from`` names under a new run id (label ``branch``) and
        return a flow bound to continue the copy; the original run stays as it was."""
        if definition is not None:
            raise ValueError("Flow.fork(definition=...) is not supported; call it on the flow class")
        from crewgraph.flow._checkpoint import fork_run, restore_run

        flow: Flow[Any] = cls()  # type: ignore[assignment]
        run_id = restore_run(flow, config)
        assert flow._persistence is not None
        document = config.checkpoint_document() if callable(getattr(config, "checkpoint_document", None)) else None
        upto, state = None, None
        if document is not None:  # fork from the point that checkpoint was taken
            upto = len(document["crewgraph"].get("completed") or [])
            state = next((e.get("state") for e in document.get("entities", []) if e.get("entity_type") == "flow"),
                         None)
        flow._restore_run = fork_run(flow._persistence, run_id, branch, upto, state)
        if callable(getattr(config, "forked", None)):  # the fork's CrewAI checkpoints go on the new branch
            flow.__dict__["_crewai_checkpoint"] = config.forked(branch)
        return flow


async def start_kickoff(
    flow: Flow[Any],
    inputs: dict[str, Any] | None,
    input_files: dict[str, Any] | None,
    from_checkpoint: Any,
    restore_from_state_id: str | None,
    max_method_calls: Any,
) -> Any:
    """One kickoff of ``flow``: continue a checkpointed run, or start one (maybe from a saved state)."""
    from crewgraph.flow._run import kickoff_flow  # the engine loads on first kickoff

    if input_files:
        raise ValueError("Flow.kickoff(input_files=...) is not supported by crewgraph: put the files "
                         "(paths or crewgraph file inputs) in the state through inputs=")
    limit = flow.max_method_calls if max_method_calls is UNSET else max_method_calls
    if from_checkpoint is not None:
        from crewgraph.flow._checkpoint import restore_run

        flow._restore_run = restore_run(flow, from_checkpoint)
    if flow._restore_run is not None:
        run_id, flow._restore_run = flow._restore_run, None
        if inputs:
            raise ValueError("a flow restored from a checkpoint resumes with its saved state; inputs are not accepted")
        from crewgraph.flow._people_api import resume_either

        return await resume_either(type(flow), flow, run_id, None, "", flow._persistence, limit)
    if restore_from_state_id is not None:
        if not flow._is_persisted() and flow._persistence is None:
            raise ValueError(
                f"restore_from_state_id={restore_from_state_id!r} needs a persisted flow: put @persist on "
                f"{type(flow).__name__} or pass persistence= (there is nowhere to restore the state from)"
            )
        inputs = {**(inputs or {}), "id": restore_from_state_id}
    return await kickoff_flow(flow, inputs, limit)
