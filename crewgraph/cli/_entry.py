"""``crewgraph run`` as ``crewai run``: call the project's own entry function.

``crewai run`` runs the project's ``run_crew`` script (``main.py: run()``, which
kicks the crew off with the inputs written there), and ``crewai flow kickoff``
its ``kickoff`` script. ``crewgraph run`` does the same in-process, so the
inputs are the ones ``main.py`` passes, and the CLI still adds what it adds to
every run: ``-i NAME=VALUE`` overrides, ``--llm``, checkpoints, the progress
display and the answer alone on stdout.

It does so with a :class:`KickoffSession`: while the entry function runs,
``Crew.kickoff`` and ``Flow.kickoff`` go through the session. The outermost
kickoff (the one ``main.py`` makes) gets the overrides, the checkpoint and the
progress; every crew kicked off meanwhile, including the crews a flow kicks
off from its methods, gets ``--llm`` (so ``--llm fake`` runs a whole flow
offline). What the entry function prints goes to stderr (nowhere with
``--quiet``), since stdout holds only the answer.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crewgraph.cli._errors import UserError
from crewgraph.cli._target import Target

__all__ = ["Entry", "KickoffSession", "entry_inputs", "find_entry"]

_inside: contextvars.ContextVar[bool] = contextvars.ContextVar("crewgraph_cli_inside_kickoff", default=False)

# CrewAI's script names: `crewai run` runs run_crew, `crewai flow kickoff` runs kickoff.
_SCRIPTS = {"crew": ("run_crew",), "flow": ("kickoff", "run_crew")}
_FUNCTIONS = {"crew": ("run",), "flow": ("kickoff",)}


@dataclass
class Entry:
    """The project's entry function (``pkg.main:run``) and where it was found."""

    spec: str  # "module:function"
    source: str  # what named it: "[project.scripts] run_crew", "src/pkg/main.py"


def _scripts(cwd: Path) -> dict[str, str]:
    import tomllib

    path = cwd / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
        return {}  # project_settings() reports a bad pyproject.toml
    scripts = data.get("project", {}).get("scripts", {})
    return {k: v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {}


def _defines(path: Path, name: str) -> bool:
    """Whether the module at ``path`` defines a top-level function ``name`` (read, not imported)."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (SyntaxError, OSError, UnicodeDecodeError):
        return False  # importing it later reports the error with file:line
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body)


def find_entry(cwd: Path, settings: dict[str, Any], prefer: str | None = None) -> Entry | None:
    """The entry function of the project in ``cwd``, if it has one.

    ``prefer`` ("crew" or "flow", else ``[tool.crewgraph] type``) picks the script
    names to look for: ``run_crew`` for a crew, ``kickoff`` for a flow, as CrewAI's
    scaffolds name them; without such a script, ``src/<pkg>/main.py``'s ``run()``
    (crew) or ``kickoff()`` (flow).
    """
    kind = prefer or settings.get("type")
    kinds = [kind] if kind in _SCRIPTS else ["crew", "flow"]
    scripts = _scripts(cwd)
    for k in kinds:
        for script in _SCRIPTS[k]:
            if script in scripts and ":" in scripts[script]:
                return Entry(scripts[script].strip(), f"[project.scripts] {script}")
    src = cwd / "src"
    mains = sorted(src.glob("*/main.py")) if src.is_dir() else []
    if len(mains) == 1:
        for k in kinds:
            for function in _FUNCTIONS[k]:
                if _defines(mains[0], function):
                    relative = mains[0].relative_to(cwd).as_posix()
                    return Entry(f"{mains[0].parent.name}.main:{function}", relative)
    return None


def entry_inputs(cwd: Path, settings: dict[str, Any]) -> dict[str, Any]:
    """The inputs the project's entry function kicks off with, read from its source (not run):
    the literal values of an ``inputs = {...}`` dict (or ``kickoff(inputs={...})``) in it. Values
    computed at run time (``str(datetime.now().year)``) are left out. {} without an entry."""
    import ast

    entry = find_entry(cwd, settings)
    if entry is None:
        return {}
    module, _, function = entry.spec.partition(":")
    path = next((p for p in (cwd / "src" / Path(*module.split(".")).with_suffix(".py"),
                             cwd / Path(*module.split(".")).with_suffix(".py")) if p.is_file()), None)
    if path is None:
        return {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, OSError, UnicodeDecodeError):
        return {}
    body = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function), None)
    if body is None:
        return {}
    found: dict[str, Any] = {}
    for node in ast.walk(body):
        assigned = isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "inputs" for t in node.targets)
        passed = isinstance(node, ast.keyword) and node.arg == "inputs"
        value = node.value if (assigned or passed) else None  # type: ignore[attr-defined]
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    try:
                        found.setdefault(key.value, ast.literal_eval(item))
                    except ValueError:
                        continue  # computed when it runs: nothing to show before
    return found


def load_entry(entry: Entry, cwd: Path) -> Callable[[], Any]:
    """Import the entry function (``src/`` and the project folder are on the path already)."""
    from crewgraph.cli._target import _get_attr, _import, _required_params

    module_name, _, attr = entry.spec.partition(":")
    module = _import(module_name, cwd)
    func = _get_attr(module, attr)
    if not callable(func):
        raise UserError(f"{entry.spec} ({entry.source}) is not a function")
    if _required_params(func):
        raise UserError(f"{entry.spec} ({entry.source}) needs arguments; `crewgraph run` calls it with none")
    return func


@dataclass
class KickoffSession:
    """Routes the kickoffs made while an entry function runs through the CLI (see the module doc)."""

    label: str
    overrides: dict[str, Any]
    llm: str | None
    checkpoint: bool
    db: str | None
    quiet: bool
    drain_streams: bool = False  # a stream=True crew: run it here (True) or hand the stream to the caller
    results: list[Any] = field(default_factory=list)

    def _apply_llm(self, crew: Any) -> None:
        from crewgraph.cli._llm import apply_llm

        apply_llm(Target(obj=crew, kind="crew", label=self.label), self.llm)

    def _outermost(self, obj: Any, kind: str, inputs: dict[str, Any] | None, call: Callable[[dict[str, Any]], Any]) -> Any:
        from crewgraph.cli._kickoff import configure_checkpoint, run_target

        ref = getattr(obj, "_factory_ref", None)
        target = Target(obj=obj, kind=kind, label=ref or self.label)
        configure_checkpoint(target, self.checkpoint, self.db)
        data = {**dict(inputs or {}), **self.overrides}
        token = _inside.set(True)
        try:
            result = run_target(target, data, quiet=self.quiet, call=call)
        finally:
            _inside.reset(token)
        self.results.append(result)
        return result

    @contextlib.contextmanager
    def active(self) -> Iterator[KickoffSession]:
        """Patch ``Crew.kickoff`` and ``Flow.kickoff`` for the duration (restored after)."""
        from crewgraph.crew import Crew
        from crewgraph.flow.flow import Flow

        session = self
        crew_kickoff = Crew.kickoff
        flow_kickoff = Flow.kickoff

        def kickoff_crew(crew: Any, inputs: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
            session._apply_llm(crew)
            if _inside.get() or (getattr(crew, "stream", False) and not session.drain_streams):
                return crew_kickoff(crew, inputs, *args, **kwargs)
            return session._outermost(crew, "crew", inputs, lambda data: crew_kickoff(crew, data, *args, **kwargs))

        def kickoff_flow(flow: Any, inputs: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
            if _inside.get():
                return flow_kickoff(flow, inputs, *args, **kwargs)
            return session._outermost(flow, "flow", inputs, lambda data: flow_kickoff(flow, data, *args, **kwargs))

        Crew.kickoff = kickoff_crew  # type: ignore[method-assign,assignment]
        Flow.kickoff = kickoff_flow  # type: ignore[method-assign,assignment]
        try:
            yield self
        finally:
            Crew.kickoff = crew_kickoff  # type: ignore[method-assign]
            Flow.kickoff = flow_kickoff  # type: ignore[method-assign]


class _ToStderr(io.TextIOBase):
    """stdout for the entry function: its prints go to stderr (or nowhere when quiet)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not self.quiet:
            sys.stderr.write(text)
        return len(text)

    def flush(self) -> None:
        if not self.quiet:
            sys.stderr.flush()


def call_entry(func: Callable[[], Any], session: KickoffSession) -> Any:
    """Run ``func`` under ``session``; the result of the last outermost kickoff it made."""
    with session.active(), contextlib.redirect_stdout(_ToStderr(session.quiet)):
        func()
    return session.results[-1] if session.results else None
