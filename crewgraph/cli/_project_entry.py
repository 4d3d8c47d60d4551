"""``crewgraph train`` / ``crewgraph test`` in a project folder, as ``crewai train`` / ``test`` do.

CrewAI's commands run the project's ``train`` / ``test`` script (``main.py``'s ``train()`` /
``test()``, which read the number of iterations and the file name or model from
``sys.argv`` and call ``Crew.train`` / ``Crew.test`` with the inputs written there). crewgraph
does the same in-process when the project has such a function. A crewgraph scaffold has only
``run()``: then the crew ``run()`` kicks off, and the inputs it passes, are taken (the kickoff
is intercepted, not run) and trained or tested directly.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from crewgraph.cli._errors import UserError

__all__ = ["ProjectCrew", "project_crew", "project_function"]


class _Captured(Exception):
    def __init__(self, crew: Any, inputs: dict[str, Any] | None) -> None:
        super().__init__("captured")
        self.crew, self.inputs = crew, dict(inputs or {})


class ProjectCrew:
    """The crew the project's ``run()`` would kick off, with its inputs."""

    def __init__(self, crew: Any, inputs: dict[str, Any], source: str) -> None:
        self.crew, self.inputs, self.source = crew, inputs, source


def project_function(cwd: Path, name: str) -> tuple[Callable[[], Any], str] | None:
    """The project's ``name`` script function (``[project.scripts] name``, else ``main.py: name()``)."""
    from crewgraph.cli._entry import Entry, _defines, _scripts, load_entry

    scripts = _scripts(cwd)
    entry = None
    if ":" in scripts.get(name, ""):
        entry = Entry(scripts[name].strip(), f"[project.scripts] {name}")
    else:
        mains = sorted((cwd / "src").glob("*/main.py")) if (cwd / "src").is_dir() else []
        if len(mains) == 1 and _defines(mains[0], name):
            entry = Entry(f"{mains[0].parent.name}.main:{name}", mains[0].relative_to(cwd).as_posix())
    if entry is None:
        return None
    return load_entry(entry, cwd), entry.source


def project_crew(cwd: Path) -> ProjectCrew | None:
    """The crew and inputs of the project's ``run()`` (None when it has no run entry)."""
    from crewgraph.cli._entry import find_entry, load_entry
    from crewgraph.crew import Crew

    entry = find_entry(cwd, {}, "crew")
    if entry is None:
        return None
    func = load_entry(entry, cwd)
    real = Crew.kickoff

    def capture(crew: Any, inputs: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        raise _Captured(crew, inputs)

    Crew.kickoff = capture  # type: ignore[method-assign,assignment]
    try:
        with contextlib.redirect_stdout(sys.stderr):
            func()
    except _Captured as got:
        return ProjectCrew(got.crew, got.inputs, entry.source)
    finally:
        Crew.kickoff = real  # type: ignore[method-assign]
    raise UserError(f"{entry.spec} ({entry.source}) returned without kicking off a crew")


@contextlib.contextmanager
def argv(*args: str) -> Iterator[None]:
    """``sys.argv`` as CrewAI's scripts read it (``train <n> <file>``, ``test <n> <model>``)."""
    saved = sys.argv
    sys.argv = list(args)
    try:
        yield
    finally:
        sys.argv = saved


@contextlib.contextmanager
def each_crew(prepare: Callable[[Any], None], overrides: dict[str, Any], results: list[Any]) -> Iterator[None]:
    """While the block runs, every crew the project trains or tests is first ``prepare``d
    and gets the ``-i`` ``overrides`` over the inputs the project passes; test results are
    appended to ``results``. A ``"fake"`` eval model is the CLI's offline demo model."""
    from crewgraph.crew import Crew

    train, test = Crew.train, Crew.test

    def train_hook(crew: Any, n_iterations: int, filename: str, inputs: dict[str, Any] | None = None) -> Any:
        prepare(crew)
        return train(crew, n_iterations, filename, {**(inputs or {}), **overrides})

    def test_hook(crew: Any, n_iterations: int, eval_llm: Any, inputs: dict[str, Any] | None = None) -> Any:
        prepare(crew)
        if isinstance(eval_llm, str) and eval_llm.strip().lower() == "fake":
            from crewgraph.cli._llm import demo_llm

            eval_llm = demo_llm()
        result = test(crew, n_iterations, eval_llm, {**(inputs or {}), **overrides})
        results.append(result)
        return result

    Crew.train, Crew.test = train_hook, test_hook  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        Crew.train, Crew.test = train, test  # type: ignore[method-assign]
