"""The registered crews and flows: what ``POST /kickoff`` may start, and how runs are rebuilt.

"Registered" means named when the server started: the project in the working
folder (found exactly as ``crewgraph run`` finds it) and every ``--crew`` /
``--flow`` spec. Each is loaded once at start-up, so a typo fails the command
instead of the first click; each kickoff then loads a *fresh* instance
(``load_target`` again: the module is cached, the crew is rebuilt), so two runs
never share a mutable Crew.

Resuming a crew run uses the registered target with the run's name, else the
``module:attr`` the run recorded (``crewgraph run`` stores it), as
``crewgraph checkpoints resume`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crewgraph.cli._errors import UserError
from crewgraph.cli._kickoff import configure_checkpoint
from crewgraph.cli._llm import apply_llm
from crewgraph.cli._target import Target, load_target

__all__ = ["Registry", "TargetRef"]


@dataclass(frozen=True)
class TargetRef:
    """One registered crew or flow: its spec (None: the project) and what the page shows."""

    spec: str | None
    name: str
    kind: str
    label: str
    inputs: tuple[str, ...] = ()
    default_inputs: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "label": self.label,
            "inputs": list(self.inputs),
            "default_inputs": self.default_inputs,
        }


def _placeholders(target: Target) -> tuple[str, ...]:
    """The ``{inputs}`` a crew's tasks and agents use (a flow takes any inputs)."""
    if target.kind != "crew":
        return ()
    from crewgraph._internal.interpolate import placeholder_names

    names: set[str] = set()
    for task in target.obj.tasks:
        names |= set(task.placeholders())
        agent = task.agent
        if agent is not None:
            for text in (agent.role, agent.goal, agent.backstory):
                names |= placeholder_names(text or "")
    return tuple(sorted(names))


class Registry:
    """Registered targets by name, loaded from specs relative to ``cwd``."""

    def __init__(self, specs: list[str | None], cwd: Path, llm: str | None = None, db: Path | str | None = None) -> None:
        self.cwd = cwd
        self.llm = llm
        self.db = db
        self.targets: dict[str, TargetRef] = {}
        for spec in specs:
            try:
                found = load_target(spec, cwd)
            except UserError:
                if spec is None:
                    continue  # no project here: only the explicit specs are registered
                raise
            if found.name in self.targets:
                raise UserError(f"two registered targets are named {found.name!r} ({found.label}); register one")
            self.targets[found.name] = TargetRef(
                spec=spec if spec is not None else None,
                name=found.name,
                kind=found.kind,
                label=found.label,
                inputs=_placeholders(found),
                default_inputs=self._defaults(spec, found),
            )

    def _defaults(self, spec: str | None, found: Target) -> dict[str, Any]:
        """What the kickoff form is prefilled with: for the project in the folder, the inputs its
        entry function passes (main.py's run(), as `crewgraph run` uses them), then its
        [tool.crewgraph.inputs]."""
        if spec is not None:
            return dict(found.default_inputs)
        from crewgraph.cli._entry import entry_inputs
        from crewgraph.cli._target import project_settings

        return {**entry_inputs(self.cwd, project_settings(self.cwd)), **found.default_inputs}

    def names(self) -> list[str]:
        return sorted(self.targets)

    def get(self, name: str | None) -> TargetRef:
        """The target ``name`` names (the only one when None); a UserError naming the choices."""
        if name is None:
            if len(self.targets) == 1:
                return next(iter(self.targets.values()))
            if not self.targets:
                raise UserError("no crew or flow is registered: start the server in a project folder "
                                "or with --crew MODULE:ATTR / --flow MODULE:ATTR")
            raise UserError(f"several targets are registered ({', '.join(self.names())}); say which in 'target'")
        ref = self.targets.get(name)
        if ref is None:
            known = ", ".join(self.names()) or "none"
            raise UserError(f"no registered crew or flow named {name!r} (registered: {known})")
        return ref

    def build(self, ref: TargetRef | str | None) -> Target:
        """A fresh, checkpointed instance of a registered target (or of a ``module:attr`` spec)."""
        spec = ref.spec if isinstance(ref, TargetRef) else ref
        found = load_target(spec, self.cwd)
        self.prepare(found)
        return found

    def prepare(self, found: Target) -> None:
        apply_llm(found, self.llm)
        if found.kind == "crew":
            configure_checkpoint(found, True, self.db)  # every run the server starts is resumable
            crew = found.obj
            if crew.input_provider is None and any(t.human_input for t in crew.tasks):
                # Nobody reads the server's stdin: a review pauses the run, the page asks.
                crew.input_provider = "persisted"
        elif found.kind == "flow":
            from crewgraph.flow.flow_config import flow_config

            flow = found.obj
            if flow.input_provider is None and flow_config.input_provider is None and flow._is_persisted():
                flow.input_provider = "persisted"  # the same for a persisted flow's self.ask(...)

    def for_run(self, name: str, recorded: str | None) -> Target:
        """The crew that resumes a run of ``name``: the registered one, else the recorded factory."""
        if name in self.targets and self.targets[name].kind == "crew":
            return self.build(self.targets[name])
        if recorded:
            return self.build(recorded)
        raise UserError(
            f"cannot rebuild crew {name!r}: it is not registered and the run recorded no MODULE:ATTR; "
            "start the server with --crew MODULE:ATTR naming it"
        )
