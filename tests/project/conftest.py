"""Write a small project (YAML files + a module) into tmp_path and import it."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from _project_files import AGENTS, MODULE, TASKS


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Errors show paths relative to the working directory: keep them short and stable."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def make_project(tmp_path: Path) -> Iterator[Callable[..., ModuleType]]:
    """``make_project(agents=..., tasks=..., module=...)`` -> the imported module."""
    names: list[str] = []

    def make(agents: str | None = AGENTS, tasks: str | None = TASKS, module: str = MODULE) -> ModuleType:
        root = tmp_path / f"proj_{len(names)}"
        (root / "config").mkdir(parents=True)
        if agents is not None:
            (root / "config" / "agents.yaml").write_text(textwrap.dedent(agents))
        if tasks is not None:
            (root / "config" / "tasks.yaml").write_text(textwrap.dedent(tasks))
        name = f"_cg_project_{uuid.uuid4().hex[:8]}"
        path = root / "crew.py"
        path.write_text(textwrap.dedent(module))
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        names.append(name)
        spec.loader.exec_module(mod)
        return mod

    yield make
    for name in names:
        sys.modules.pop(name, None)
